// torch.nn.Embedding and EmbeddingBag.
// https://pytorch.org/docs/stable/nn.html#sparse-layers
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "flash_powder/base/device.h"
#include "flash_powder/base/dtype.h"
#include "flash_powder/nn/define.h"
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
/// https://pytorch.org/docs/stable/generated/torch.nn.Embedding.html
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

/// Python's EmbeddingBag keywords that shape the result (max_norm, which
/// rewrites `weight` during forward, and the gradient-only norm_type,
/// scale_grad_by_freq and sparse are not offered).
struct EmbeddingBagOptions {
  /// "sum", "mean" or "max".
  std::string mode = "mean";
  /// `offsets` has one entry more than there are bags (CSR format).
  bool include_last_offset = false;
  /// This row starts as zeros and is left out of the reductions (negative
  /// counts from the end).
  std::optional<std::int64_t> padding_idx{};
  std::optional<Device> device{};
  std::optional<DType> dtype{};
};

/// Sums, means or maxes of bags of embeddings (functional::embedding_bag
/// with `weight` [num_embeddings, embedding_dim]).
/// https://pytorch.org/docs/stable/generated/torch.nn.EmbeddingBag.html
class EmbeddingBag : public ModuleBase {
 public:
  /// Throws fp::Error when padding_idx is outside [-num_embeddings, num_embeddings).
  EmbeddingBag(std::int64_t num_embeddings, std::int64_t embedding_dim,
               const EmbeddingBagOptions& options = {});
  /// A bag layer holding (a copy of) `embeddings` [num_embeddings,
  /// embedding_dim] as its weight (Python's `from_pretrained`; `freeze` only
  /// matters for training). The device and dtype options are ignored: the
  /// weight keeps the embeddings'. Throws fp::Error unless `embeddings` is 2-D.
  static EmbeddingBag from_pretrained(const TensorView& embeddings,
                                      const EmbeddingBagOptions& options = {});

  void visit(Visitor& visitor) override;
  /// 1-D `input` with `offsets`, or 2-D `input` [B, N] without: [B, embedding_dim].
  /// `per_sample_weights` (the shape of input) only with mode "sum".
  Tensor forward(TensorView input, const std::optional<TensorView>& offsets = std::nullopt,
                 const std::optional<TensorView>& per_sample_weights = std::nullopt) const;
  FP_MODULE_CALL()

  std::int64_t num_embeddings;
  std::int64_t embedding_dim;
  std::string mode;
  bool include_last_offset;
  /// Normalised to a non-negative row, as in Python.
  std::optional<std::int64_t> padding_idx;
  Tensor weight;
};

}  // namespace fp::nn
