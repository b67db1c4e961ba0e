#include "flash_powder/nn/utils/rnn.h"

#include <algorithm>
#include <string>
#include <vector>

#include "flash_powder/aten/aten.h"
#include "flash_powder/core/conversion.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/index.h"
#include "nn/messages.h"

// torch/nn/utils/rnn.py, and the kernels it calls in
// aten/src/ATen/native/PackedSequence.cpp, step by step.

namespace fp::nn::utils::rnn {
namespace {

[[noreturn]] void fail(const char* function, const std::string& message) {
  throw Error(ErrorCode::BadArgument,
              std::string("fp::nn::utils::rnn::") + function + ": " + message);
}

std::vector<TensorView> views_of(const std::vector<Tensor>& tensors) {
  return {tensors.begin(), tensors.end()};
}

/// `batch_sizes` as numbers (a CPU int64 tensor, as PackedSequence requires).
std::vector<std::int64_t> batch_sizes_of(const Tensor& batch_sizes, const char* function) {
  if (!batch_sizes.is_defined() || batch_sizes.dim() != 1 || !batch_sizes.device().is_cpu() ||
      batch_sizes.dtype() != DType::I64) {
    fail(function,
         "batch_sizes must be a 1-D int64 tensor on the CPU (make PackedSequences with "
         "pack_padded_sequence or pack_sequence)");
  }
  return batch_sizes.to_vector<std::int64_t>();
}

}  // namespace

PackedSequence PackedSequence::to(TensorOptions options) const {
  PackedSequence moved{data.to(options), batch_sizes, sorted_indices, unsorted_indices};
  const Device device = moved.data.device();
  if (sorted_indices.is_defined()) moved.sorted_indices = sorted_indices.to(device);
  if (unsorted_indices.is_defined()) moved.unsorted_indices = unsorted_indices.to(device);
  return moved;
}

Tensor invert_permutation(const Tensor& permutation) {
  if (!permutation.is_defined()) return {};
  const Tensor positions =
      arange(permutation.numel(), TensorOptions(DType::I64, permutation.device()));
  return aten::scatter_src(empty_like(permutation), 0, permutation, positions);
}

PackedSequence pack_padded_sequence(const TensorView& input, const TensorView& lengths,
                                    const PackPaddedSequenceOptions& options) {
  Tensor sorted_lengths = lengths.to(DType::I64);
  Tensor sorted_indices;
  std::optional<Tensor> sorted_input;
  if (!options.enforce_sorted) {
    auto [values, indices] = sorted_lengths.sort(-1, true);
    sorted_lengths = std::move(values);
    sorted_indices = indices.to(input.device());
    sorted_input = aten::index_select(input, options.batch_first ? 0 : 1, sorted_indices);
  }
  auto [data, batch_sizes] = aten::_pack_padded_sequence(
      sorted_input ? TensorView(*sorted_input) : input, sorted_lengths, options.batch_first);
  Tensor unsorted_indices = invert_permutation(sorted_indices);
  return {std::move(data), std::move(batch_sizes), std::move(sorted_indices),
          std::move(unsorted_indices)};
}

PackedSequence pack_padded_sequence(const TensorView& input, IntList lengths,
                                    const PackPaddedSequenceOptions& options) {
  const Tensor as_tensor = tensor(std::vector<std::int64_t>(lengths.begin(), lengths.end()));
  return pack_padded_sequence(input, as_tensor, options);
}

std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence,
                                               const PadPackedSequenceOptions& options) {
  const std::vector<std::int64_t> batch_sizes =
      batch_sizes_of(sequence.batch_sizes, "pad_packed_sequence");
  const auto steps = static_cast<std::int64_t>(batch_sizes.size());
  std::int64_t max_length = steps;
  if (options.total_length) {
    if (*options.total_length < steps) {
      fail("pad_packed_sequence",
           "Expected total_length to be at least the length of the longest sequence in input, "
           "but got total_length=" +
               std::to_string(*options.total_length) + " and max sequence length being " +
               std::to_string(steps));
    }
    max_length = *options.total_length;
  }
  const Tensor& data = sequence.data;
  if (steps == 0 || !data.is_defined() || data.dim() < 1) {
    fail("pad_packed_sequence", "the PackedSequence is empty");
  }
  // ATen's _pad_packed_sequence: a tensor of padding, then each run of steps
  // with the same batch size copied in as one block.
  const std::int64_t max_batch = batch_sizes.front();
  std::vector<std::int64_t> output_sizes{max_length, max_batch};
  for (std::int64_t d = 1; d < data.dim(); ++d)
    output_sizes.push_back(data.size(d));
  Tensor output =
      full(output_sizes, options.padding_value, TensorOptions(data.dtype(), data.device()));
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(max_batch));
  std::int64_t next_length = max_batch - 1;
  std::int64_t offset = 0, previous_batch = max_batch, previous_step = 0;
  for (std::int64_t step = 0; step <= steps; ++step) {
    const std::int64_t batch = step != steps ? batch_sizes[static_cast<std::size_t>(step)] : 0;
    if (batch != previous_batch) {
      const std::int64_t count = previous_batch * (step - previous_step);
      std::vector<std::int64_t> block_sizes = output_sizes;
      block_sizes[0] = step - previous_step;
      block_sizes[1] = previous_batch;
      const TensorView block = data.narrow(0, offset, count).view(block_sizes);
      output.i_mut(slice(previous_step, step), slice(0, previous_batch)).copy_(block);
      offset += count;
      previous_step = step;
    }
    for (std::int64_t j = 0; j < previous_batch - batch; ++j)
      lengths[static_cast<std::size_t>(next_length--)] = step;
    previous_batch = batch;
  }
  Tensor lengths_tensor = tensor(lengths);
  if (options.batch_first) output = Tensor(output.transpose(0, 1));
  if (sequence.unsorted_indices.is_defined()) {
    const std::int64_t batch_dim = options.batch_first ? 0 : 1;
    return {aten::index_select(output, batch_dim, sequence.unsorted_indices),
            aten::index_select(lengths_tensor, 0, sequence.unsorted_indices.cpu())};
  }
  return {std::move(output), std::move(lengths_tensor)};
}

Tensor pad_sequence(const std::vector<TensorView>& sequences, const PadSequenceOptions& options) {
  // ATen's pad_sequence (aten/src/ATen/native/PackedSequence.cpp).
  if (sequences.empty()) fail("pad_sequence", "received an empty list of sequences");
  if (options.padding_side != "left" && options.padding_side != "right") {
    fail("pad_sequence",
         "Expected padding_side to be one of left or right, but got " + options.padding_side + ".");
  }
  const TensorView& first = sequences.front();
  if (first.dim() < 1) fail("pad_sequence", "each sequence must have at least one dimension");
  std::int64_t max_length = 0;
  for (const TensorView& sequence : sequences) {
    if (sequence.dim() < 1) fail("pad_sequence", "each sequence must have at least one dimension");
    max_length = std::max(max_length, sequence.size(0));
  }
  const auto count = static_cast<std::int64_t>(sequences.size());
  std::vector<std::int64_t> sizes = options.batch_first
                                        ? std::vector<std::int64_t>{count, max_length}
                                        : std::vector<std::int64_t>{max_length, count};
  for (std::int64_t d = 1; d < first.dim(); ++d)
    sizes.push_back(first.size(d));
  Tensor out = full(sizes, options.padding_value, TensorOptions(first.dtype(), first.device()));
  for (std::int64_t i = 0; i < count; ++i) {
    const TensorView& sequence = sequences[static_cast<std::size_t>(i)];
    const std::int64_t length = sequence.size(0);
    const std::int64_t start = options.padding_side == "left" ? max_length - length : 0;
    if (options.batch_first) {
      out.i_mut(i, slice(start, start + length)).copy_(sequence);
    } else {
      out.i_mut(slice(start, start + length), i).copy_(sequence);
    }
  }
  return out;
}

Tensor pad_sequence(const std::vector<Tensor>& sequences, const PadSequenceOptions& options) {
  return pad_sequence(views_of(sequences), options);
}

std::vector<Tensor> unpad_sequence(const TensorView& padded_sequences, const TensorView& lengths,
                                   const UnpadSequenceOptions& options) {
  if (padded_sequences.dim() < 2) {
    fail("unpad_sequence", "padded_sequences must have at least 2 dimensions, got " +
                               std::to_string(padded_sequences.dim()));
  }
  const TensorView batch_major =
      options.batch_first ? padded_sequences : padded_sequences.transpose(0, 1);
  const std::vector<std::int64_t> each = lengths.to_vector<std::int64_t>();
  if (static_cast<std::int64_t>(each.size()) != batch_major.size(0)) {
    fail("unpad_sequence", "got " + std::to_string(each.size()) + " lengths for a batch of " +
                               std::to_string(batch_major.size(0)));
  }
  // Python's `seq[arange(max_length) < length]`: a boolean-mask index, a copy.
  const Tensor positions = arange(batch_major.size(1), TensorOptions(DType::I64, lengths.device()));
  std::vector<Tensor> sequences;
  for (std::size_t i = 0; i < each.size(); ++i) {
    const Tensor mask = positions.lt(tensor(each[i]).to(lengths.device()));
    sequences.push_back(batch_major.select(0, static_cast<std::int64_t>(i)).index(mask));
  }
  return sequences;
}

PackedSequence pack_sequence(const std::vector<TensorView>& sequences,
                             const PackSequenceOptions& options) {
  std::vector<std::int64_t> lengths;
  for (const TensorView& sequence : sequences) {
    if (sequence.dim() < 1) fail("pack_sequence", "each sequence must have at least one dimension");
    lengths.push_back(sequence.size(0));
  }
  const Tensor padded = pad_sequence(sequences);
  return pack_padded_sequence(padded, tensor(lengths), {.enforce_sorted = options.enforce_sorted});
}

PackedSequence pack_sequence(const std::vector<Tensor>& sequences,
                             const PackSequenceOptions& options) {
  return pack_sequence(views_of(sequences), options);
}

std::vector<Tensor> unpack_sequence(const PackedSequence& packed_sequences) {
  auto [padded, lengths] = pad_packed_sequence(packed_sequences, {.batch_first = true});
  return unpad_sequence(padded, lengths, {.batch_first = true});
}

}  // namespace fp::nn::utils::rnn
