// torch.nn.functional.embedding, embedding_bag and one_hot.
// https://pytorch.org/docs/stable/nn.functional.html#sparse-functions
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "flash_powder/core/tensor.h"

namespace fp::functional {

/// The keyword arguments of embedding, with PyTorch's defaults.
struct EmbeddingOptions {
  /// The row that marks padding (negative counts from the end); it only
  /// matters for gradients, but is checked like Python.
  std::optional<std::int64_t> padding_idx{};
};
/// The rows of `weight` selected by the integer tensor `input`:
/// [*] -> [*, embedding_dim]. Python's max_norm is not offered: it rewrites
/// `weight` in place during the lookup.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.embedding.html
Tensor embedding(const TensorView& input, const TensorView& weight,
                 const EmbeddingOptions& options = {});

/// The keyword arguments of Python's embedding_bag that shape the result
/// (max_norm, which rewrites `weight` in place, and the gradient-only
/// scale_grad_by_freq and sparse are not offered).
struct EmbeddingBagOptions {
  /// "sum", "mean" or "max".
  std::string mode = "mean";
  /// A weight per index (the shape of `input`), for mode "sum" only.
  std::optional<TensorView> per_sample_weights{};
  /// `offsets` has one entry more than there are bags: the end of the last
  /// (CSR format). Ignored for 2-D input.
  bool include_last_offset = false;
  /// Indices equal to this row (negative counts from the end) are left out
  /// of the reduction.
  std::optional<std::int64_t> padding_idx{};
};
/// Sums, means or maxes of bags of rows of `weight` [num_embeddings, dim]
/// without making the rows themselves: `input` 1-D (integer indices, bags
/// starting at `offsets`, 1-D, of the same dtype) or 2-D [B, N] (B bags of
/// N; offsets absent) -> [B, dim]; an empty bag gives zeros. Throws
/// fp::Error with Python's message for inputs that do not fit.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.embedding_bag.html
Tensor embedding_bag(const TensorView& input, const TensorView& weight,
                     const std::optional<TensorView>& offsets = std::nullopt,
                     const EmbeddingBagOptions& options = {});

/// int64 one-hot encoding of an int64 tensor; `num_classes = -1` takes the
/// largest value plus one.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.one_hot.html
Tensor one_hot(const TensorView& input, std::int64_t num_classes = -1);

}  // namespace fp::functional
