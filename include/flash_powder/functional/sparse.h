// torch.nn.functional.embedding and one_hot.
// https://pytorch.org/docs/stable/nn.functional.html#sparse-functions
#pragma once

#include <cstdint>
#include <optional>

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

/// int64 one-hot encoding of an int64 tensor; `num_classes = -1` takes the
/// largest value plus one.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.one_hot.html
Tensor one_hot(const TensorView& input, std::int64_t num_classes = -1);

}  // namespace fp::functional
