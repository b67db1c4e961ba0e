// torch.nn.utils.rnn: packed sequences for the recurrent layers.
// https://pytorch.org/docs/stable/nn.html#utilities
//
//     namespace rnn = fp::nn::utils::rnn;
//     rnn::PackedSequence packed =
//         rnn::pack_padded_sequence(padded, lengths, {.batch_first = true, .enforce_sorted = false});
//     auto [out, state] = lstm(packed);                   // a PackedSequence and (h_n, c_n)
//     auto [unpacked, out_lengths] = rnn::pad_packed_sequence(out, {.batch_first = true});
//
// Each result equals Python's (values, dtypes and strides).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "flash_powder/core/array_ref.h"
#include "flash_powder/core/options.h"
#include "flash_powder/core/tensor.h"

namespace fp::nn::utils::rnn {

/// A batch of sequences of different lengths, packed time step by time step
/// (Python's `PackedSequence` namedtuple). Made by pack_padded_sequence or
/// pack_sequence; the recurrent layers take and return it.
/// https://pytorch.org/docs/stable/generated/torch.nn.utils.rnn.PackedSequence.html
struct PackedSequence {
  /// Shape [total steps, *]: the first step of every sequence, then the second, ...
  Tensor data;
  /// int64 on the CPU: how many sequences have each step.
  Tensor batch_sizes;
  /// The order pack_padded_sequence sorted the batch into (undefined, Python's
  /// None, when it was sorted already), and its inverse.
  Tensor sorted_indices;
  /// The inverse of sorted_indices (undefined when that is).
  Tensor unsorted_indices;

  /// `data` moved and/or converted, and the indices moved to its device
  /// (batch_sizes stays on the CPU), like Python's `PackedSequence.to`.
  PackedSequence to(TensorOptions options) const;
  /// Whether the data is on a CUDA device.
  bool is_cuda() const { return data.device().is_cuda(); }
};

/// The inverse of a permutation (undefined for an undefined one).
/// https://pytorch.org/docs/stable/generated/torch.nn.utils.rnn.invert_permutation.html
Tensor invert_permutation(const Tensor& permutation);

/// The keyword arguments of pack_padded_sequence, with PyTorch's defaults.
struct PackPaddedSequenceOptions {
  /// `input` is [batch, time, *] rather than [time, batch, *].
  bool batch_first = false;
  /// The sequences are sorted by decreasing length (checked by libtorch);
  /// if false they are sorted here, and the order is kept in the result.
  bool enforce_sorted = true;
};
/// Packs a padded batch: `input` [time, batch, *] (or [batch, time, *]) and
/// each sequence's length. `lengths` is an integer tensor on the CPU, or a list.
/// https://pytorch.org/docs/stable/generated/torch.nn.utils.rnn.pack_padded_sequence.html
PackedSequence pack_padded_sequence(const TensorView& input, const TensorView& lengths,
                                    const PackPaddedSequenceOptions& options = {});
/// The same with the lengths as a list.
PackedSequence pack_padded_sequence(const TensorView& input, IntList lengths,
                                    const PackPaddedSequenceOptions& options = {});

/// The keyword arguments of pad_packed_sequence, with PyTorch's defaults.
struct PadPackedSequenceOptions {
  /// Return [batch, time, *] (a transposed view of [time, batch, *], as in Python).
  bool batch_first = false;
  /// The value of the padding.
  double padding_value = 0.0;
  /// Pad to this many steps (at least the longest sequence's).
  std::optional<std::int64_t> total_length{};
};
/// Unpacks: the padded batch and each sequence's length (int64), in the
/// order the batch had before packing.
/// https://pytorch.org/docs/stable/generated/torch.nn.utils.rnn.pad_packed_sequence.html
///
/// Python's `_pad_packed_sequence` takes padding_value as a Scalar, which the
/// stable ABI cannot carry; this does what its kernel does (a tensor filled
/// with the value, then each block of steps copied in), so the bits are equal.
std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence,
                                               const PadPackedSequenceOptions& options = {});

/// The keyword arguments of pad_sequence, with PyTorch's defaults.
struct PadSequenceOptions {
  /// Return [batch, max L, *] rather than [max L, batch, *].
  bool batch_first = false;
  /// The value of the padding.
  double padding_value = 0.0;
  /// "right" or "left".
  std::string padding_side = "right";
};
/// Stacks sequences [L_i, *] into [max L, batch, *] (or [batch, max L, *]),
/// padding with padding_value.
/// https://pytorch.org/docs/stable/generated/torch.nn.utils.rnn.pad_sequence.html
///
/// What libtorch's `pad_sequence` does (a filled tensor, each sequence
/// copied in), without passing it the `padding_side` string, which torch
/// 2.10-2.13 leak on every call.
Tensor pad_sequence(const std::vector<TensorView>& sequences,
                    const PadSequenceOptions& options = {});
/// The same for tensors.
Tensor pad_sequence(const std::vector<Tensor>& sequences, const PadSequenceOptions& options = {});

/// The keyword arguments of unpad_sequence, with PyTorch's defaults.
struct UnpadSequenceOptions {
  /// `padded_sequences` is [batch, time, *] rather than [time, batch, *].
  bool batch_first = false;
};
/// The sequences of a padded batch, each cut to its length.
/// https://pytorch.org/docs/stable/generated/torch.nn.utils.rnn.unpad_sequence.html
std::vector<Tensor> unpad_sequence(const TensorView& padded_sequences, const TensorView& lengths,
                                   const UnpadSequenceOptions& options = {});

/// The keyword arguments of pack_sequence, with PyTorch's defaults.
struct PackSequenceOptions {
  /// The sequences are sorted by decreasing length; if false they are sorted here.
  bool enforce_sorted = true;
};
/// pad_sequence then pack_padded_sequence.
/// https://pytorch.org/docs/stable/generated/torch.nn.utils.rnn.pack_sequence.html
PackedSequence pack_sequence(const std::vector<TensorView>& sequences,
                             const PackSequenceOptions& options = {});
/// The same for tensors.
PackedSequence pack_sequence(const std::vector<Tensor>& sequences,
                             const PackSequenceOptions& options = {});

/// The sequences of a PackedSequence, in their original order.
/// https://pytorch.org/docs/stable/generated/torch.nn.utils.rnn.unpack_sequence.html
std::vector<Tensor> unpack_sequence(const PackedSequence& packed_sequences);

}  // namespace fp::nn::utils::rnn

namespace fp::nn {
using utils::rnn::PackedSequence;
}  // namespace fp::nn
