// torch.nn.functional.cosine_similarity.
// https://pytorch.org/docs/stable/nn.functional.html#distance-functions
#pragma once

#include <cstdint>

#include "flash_powder/core/tensor.h"

namespace fp::functional {

/// The keyword arguments of cosine_similarity, with PyTorch's defaults.
struct CosineSimilarityOptions {
  /// The dimension to reduce.
  std::int64_t dim = 1;
  /// The smallest norm product divided by.
  double eps = 1e-8;
};
/// x1 . x2 / max(||x1|| ||x2||, eps) along `dim` (inputs broadcast); a new Tensor.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.cosine_similarity.html
Tensor cosine_similarity(const TensorView& x1, const TensorView& x2,
                         const CosineSimilarityOptions& options = {});

}  // namespace fp::functional
