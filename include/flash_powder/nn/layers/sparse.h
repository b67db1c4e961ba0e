// torch.nn.Embedding. https://pytorch.org/docs/stable/generated/torch.nn.Embedding.html
#pragma once

#include <cstdint>
#include <optional>

#include "flash_powder/base/device.h"
#include "flash_powder/base/dtype.h"
#include "flash_powder/nn/module.h"

namespace fp::nn {

/// The keyword arguments of torch.nn.Embedding, with PyTorch's defaults.
struct EmbeddingOptions {
  /// This row starts as zeros (negative counts from the end).
  std::optional<std::int64_t> padding_idx{};
  /// Where the weight lives (the CPU, or the DefaultDevice, when absent).
  std::optional<Device> device{};
  /// The weight's dtype (float32 when absent).
  std::optional<DType> dtype{};
};

/// A lookup table: integer indices [*] -> rows of `weight` [*, embedding_dim].
/// Python's max_norm is not offered: it rewrites `weight` during forward.
class Embedding : public Module {
 public:
  /// Throws fp::Error when padding_idx is outside [-num_embeddings, num_embeddings).
  Embedding(std::int64_t num_embeddings, std::int64_t embedding_dim,
            const EmbeddingOptions& options = {});

  void visit(Visitor& visitor) override;
  Tensor forward(TensorView input) const override;

  /// The number of rows.
  std::int64_t num_embeddings;
  /// The size of each row.
  std::int64_t embedding_dim;
  /// Normalised to a non-negative row, as in Python.
  std::optional<std::int64_t> padding_idx;
  /// [num_embeddings, embedding_dim].
  Tensor weight;
};

}  // namespace fp::nn
