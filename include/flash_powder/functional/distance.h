// Distance functions: torch.nn.functional.pairwise_distance, cosine_similarity and pdist.
// https://pytorch.org/docs/stable/nn.functional.html#distance-functions
//
// Each returns a new Tensor, bit-exact with Python (both run ATen's kernels).
#pragma once

#include <cstdint>

#include "flash_powder/core/tensor.h"

namespace fp::functional {

struct PairwiseDistanceOptions {
  /// The norm degree (may be 0, fractional or inf).
  double p = 2.0;
  /// Added to the difference to avoid division by zero.
  double eps = 1e-6;
  /// Keep the reduced last dimension as size 1.
  bool keepdim = false;
};
/// ||x1 - x2 + eps||_p over the last dimension (inputs broadcast).
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.pairwise_distance.html
Tensor pairwise_distance(const TensorView& x1, const TensorView& x2,
                         const PairwiseDistanceOptions& options = {});

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

struct PdistOptions {
  /// The norm degree, >= 0.
  double p = 2.0;
};
/// The p-norm distances between all pairs of rows of `input` [N, M]: the
/// upper triangle of the distance matrix, row by row, [N * (N - 1) / 2].
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.pdist.html
Tensor pdist(const TensorView& input, const PdistOptions& options = {});

}  // namespace fp::functional
