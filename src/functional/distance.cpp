#include "flash_powder/functional/distance.h"

#include "flash_powder/aten/aten.h"

namespace fp::functional {

Tensor pairwise_distance(const TensorView& x1, const TensorView& x2,
                         const PairwiseDistanceOptions& options) {
  return aten::pairwise_distance(x1, x2, options.p, options.eps, options.keepdim);
}

Tensor cosine_similarity(const TensorView& x1, const TensorView& x2,
                         const CosineSimilarityOptions& options) {
  return aten::cosine_similarity(x1, x2, options.dim, options.eps);
}

Tensor pdist(const TensorView& input, const PdistOptions& options) {
  return aten::pdist(input, options.p);
}

}  // namespace fp::functional
