#include "flash_powder/nn/layers/distance.h"

namespace fp::nn {

Tensor CosineSimilarity::forward(TensorView x1, TensorView x2) const {
  return functional::cosine_similarity(x1, x2, options);
}

Tensor PairwiseDistance::forward(TensorView x1, TensorView x2) const {
  return functional::pairwise_distance(x1, x2, options);
}

}  // namespace fp::nn
