#include "flash_powder/nn/functional/sparse.h"

#include <string>

#include "../aten_op.h"

namespace fp::functional {

Tensor embedding(TensorView input, TensorView weight, const EmbeddingOptions& options) {
  static const nn::detail::AtenOp op("aten::embedding", "");
  std::int64_t padding_idx = -1;  // ATen's "none"
  if (options.padding_idx) {
    // Python's checks and normalisation of a negative index, in its words.
    const std::int64_t rows = weight.dim() > 0 ? weight.size(0) : 0;
    padding_idx = *options.padding_idx;
    if (padding_idx > 0 && padding_idx >= rows) {
      throw Error("fp::functional::embedding: Padding_idx must be within num_embeddings");
    }
    if (padding_idx < 0) {
      if (padding_idx < -rows) {
        throw Error("fp::functional::embedding: Padding_idx must be within num_embeddings");
      }
      padding_idx += rows;
    }
  }
  return op(weight, input, padding_idx, false, false);
}

Tensor one_hot(TensorView input, std::int64_t num_classes) {
  static const nn::detail::AtenOp op("aten::one_hot", "");
  return op(input, num_classes);
}

}  // namespace fp::functional
