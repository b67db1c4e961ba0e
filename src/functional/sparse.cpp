#include "flash_powder/functional/sparse.h"

#include <string>

#include "flash_powder/aten/aten.h"

namespace fp::functional {

Tensor embedding(const TensorView& input, const TensorView& weight,
                 const EmbeddingOptions& options) {
  std::int64_t padding_idx = -1;  // ATen's "none"
  if (options.padding_idx) {
    // Python's checks and normalisation of a negative index, in its words.
    const std::int64_t rows = weight.dim() > 0 ? weight.size(0) : 0;
    padding_idx = *options.padding_idx;
    if (padding_idx > 0 && padding_idx >= rows) {
      throw Error(ErrorCode::BadArgument,
                  "fp::functional::embedding: Padding_idx must be within num_embeddings");
    }
    if (padding_idx < 0) {
      if (padding_idx < -rows) {
        throw Error(ErrorCode::BadArgument,
                    "fp::functional::embedding: Padding_idx must be within num_embeddings");
      }
      padding_idx += rows;
    }
  }
  return aten::embedding(weight, input, padding_idx);
}

Tensor one_hot(const TensorView& input, std::int64_t num_classes) {
  return aten::one_hot(input, num_classes);
}

}  // namespace fp::functional
