#include "flash_powder/nn/functional/distance.h"

#include "../aten_op.h"

namespace fp::functional {

Tensor cosine_similarity(TensorView x1, TensorView x2, const CosineSimilarityOptions& options) {
  static const nn::detail::AtenOp op("aten::cosine_similarity", "");
  return op(x1, x2, options.dim, options.eps);
}

}  // namespace fp::functional
