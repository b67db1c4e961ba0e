#include "flash_powder/nn/layers/sparse.h"

#include "flash_powder/aten/aten.h"
#include "flash_powder/core/conversion.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/functional/sparse.h"
#include "nn/messages.h"
#include "parameters.h"

namespace fp::nn {

namespace {

/// Python's normalisation of a padding_idx (negative counts from the end).
std::optional<std::int64_t> padding_row(const std::optional<std::int64_t>& padding_idx,
                                        std::int64_t num_embeddings, const char* layer,
                                        const char* message) {
  if (!padding_idx) return std::nullopt;
  const std::int64_t index = *padding_idx;
  if (index >= num_embeddings || index < -num_embeddings) detail::fail(layer, message);
  return index < 0 ? index + num_embeddings : index;
}

/// Standard normal rows with the padding row zeroed, as PyTorch initialises
/// Embedding and EmbeddingBag.
Tensor embedding_init(std::int64_t num_embeddings, std::int64_t embedding_dim,
                      const std::optional<std::int64_t>& padding_idx,
                      const TensorOptions& tensor_options) {
  Tensor weight = detail::normal_init({num_embeddings, embedding_dim}, tensor_options);
  if (padding_idx && !detail::skips_init(tensor_options)) {
    const Tensor row = tensor(std::vector<std::int64_t>{*padding_idx}).to(weight.device());
    const Tensor zero = tensor(0.0).to(TensorOptions(weight.dtype(), weight.device()));
    weight = aten::index_fill_int_Tensor(weight, 0, row, zero);
  }
  return weight;
}

}  // namespace

Embedding::Embedding(std::int64_t num_embeddings, std::int64_t embedding_dim,
                     const EmbeddingOptions& options)
    : num_embeddings(num_embeddings),
      embedding_dim(embedding_dim),
      padding_idx(padding_row(options.padding_idx, num_embeddings, "Embedding",
                              "Padding_idx must be within num_embeddings")) {
  weight = embedding_init(num_embeddings, embedding_dim, padding_idx,
                          detail::layer_options(options.dtype, options.device));
}

void Embedding::visit(Visitor& visitor) {
  visitor.parameter("weight", weight);
}

Tensor Embedding::forward(TensorView input) const {
  return functional::embedding(input, weight, {.padding_idx = padding_idx});
}

EmbeddingBag::EmbeddingBag(std::int64_t num_embeddings, std::int64_t embedding_dim,
                           const EmbeddingBagOptions& options)
    : num_embeddings(num_embeddings),
      embedding_dim(embedding_dim),
      mode(options.mode),
      include_last_offset(options.include_last_offset),
      padding_idx(padding_row(options.padding_idx, num_embeddings, "EmbeddingBag",
                              "padding_idx must be within num_embeddings")) {
  weight = embedding_init(num_embeddings, embedding_dim, padding_idx,
                          detail::layer_options(options.dtype, options.device));
}

EmbeddingBag EmbeddingBag::from_pretrained(const TensorView& embeddings,
                                           const EmbeddingBagOptions& options) {
  if (embeddings.dim() != 2) {
    detail::fail("EmbeddingBag", "Embeddings parameter is expected to be 2-dimensional");
  }
  // Made on the meta device, so that nothing is drawn for the weight replaced here.
  EmbeddingBagOptions meta = options;
  meta.device = Device::meta();
  EmbeddingBag bag(embeddings.size(0), embeddings.size(1), meta);
  bag.weight = embeddings.to_owned();
  return bag;
}

void EmbeddingBag::visit(Visitor& visitor) {
  visitor.parameter("weight", weight);
}

Tensor EmbeddingBag::forward(TensorView input, const std::optional<TensorView>& offsets,
                             const std::optional<TensorView>& per_sample_weights) const {
  return functional::embedding_bag(input, weight, offsets,
                                   {.mode = mode,
                                    .per_sample_weights = per_sample_weights,
                                    .include_last_offset = include_last_offset,
                                    .padding_idx = padding_idx});
}

}  // namespace fp::nn
