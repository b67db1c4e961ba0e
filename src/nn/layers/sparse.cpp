#include "flash_powder/nn/layers/sparse.h"

#include "../aten_op.h"
#include "../tensor_ops.h"
#include "common.h"
#include "flash_powder/core/conversion.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/nn/functional/sparse.h"

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
  weight = detail::normal_init({num_embeddings, embedding_dim},
                               detail::layer_options(options.dtype, options.device));
  if (padding_idx) {
    // PyTorch zeroes the padding row.
    static const detail::AtenOp index_fill("aten::index_fill", "int_Tensor");
    const Tensor row =
        detail::to(tensor(std::vector<std::int64_t>{*padding_idx}), std::nullopt, weight.device());
    const Tensor zero = detail::to(tensor(0.0), weight.dtype(), weight.device());
    weight = index_fill(weight, 0, row, zero);
  }
}

void Embedding::visit(Visitor& visitor) {
  visitor.parameter("weight", weight);
}

Tensor Embedding::forward(TensorView input) const {
  return functional::embedding(input, weight, {.padding_idx = padding_idx});
}

}  // namespace fp::nn
