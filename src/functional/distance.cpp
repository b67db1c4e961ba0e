#include "flash_powder/functional/distance.h"

#include "flash_powder/aten/aten.h"

namespace fp::functional {

Tensor cosine_similarity(const TensorView& x1, const TensorView& x2,
                         const CosineSimilarityOptions& options) {
  return aten::cosine_similarity(x1, x2, options.dim, options.eps);
}

}  // namespace fp::functional
