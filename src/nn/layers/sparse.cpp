#include "flash_powder/nn/layers/sparse.h"

#include "flash_powder/aten/aten.h"
#include "flash_powder/core/conversion.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/functional/sparse.h"
#include "nn/messages.h"
#include "parameters.h"

namespace fp::nn {

Embedding::Embedding(std::int64_t num_embeddings, std::int64_t embedding_dim,
                     const EmbeddingOptions& options)
    : num_embeddings(num_embeddings), embedding_dim(embedding_dim) {
  if (options.padding_idx) {
    const std::int64_t index = *options.padding_idx;
    if (index >= num_embeddings || index < -num_embeddings) {
      detail::fail("Embedding", "Padding_idx must be within num_embeddings");
    }
    padding_idx = index < 0 ? index + num_embeddings : index;
  }
  const TensorOptions tensor_options = detail::layer_options(options.dtype, options.device);
  weight = detail::normal_init({num_embeddings, embedding_dim}, tensor_options);
  if (padding_idx && !detail::skips_init(tensor_options)) {
    // PyTorch zeroes the padding row.
    const Tensor row = tensor(std::vector<std::int64_t>{*padding_idx}).to(weight.device());
    const Tensor zero = tensor(0.0).to(TensorOptions(weight.dtype(), weight.device()));
    weight = aten::index_fill_int_Tensor(weight, 0, row, zero);
  }
}

void Embedding::visit(Visitor& visitor) {
  visitor.parameter("weight", weight);
}

Tensor Embedding::forward(TensorView input) const {
  return functional::embedding(input, weight, {.padding_idx = padding_idx});
}

}  // namespace fp::nn
