// torch.nn's distance layers: CosineSimilarity and PairwiseDistance
// (fp::functional's cosine_similarity and pairwise_distance as layers).
// https://pytorch.org/docs/stable/nn.html#distance-functions
//
//     fp::nn::PairwiseDistance distance({.p = 1.0});
//     fp::Tensor d = distance(x1, x2);
#pragma once

#include "flash_powder/functional/distance.h"
#include "flash_powder/nn/define.h"
#include "flash_powder/nn/module.h"

namespace fp::nn {

/// dim and eps, as Python's keywords.
using CosineSimilarityOptions = functional::CosineSimilarityOptions;
/// p, eps and keepdim, as Python's keywords.
using PairwiseDistanceOptions = functional::PairwiseDistanceOptions;

/// https://pytorch.org/docs/stable/generated/torch.nn.CosineSimilarity.html
class CosineSimilarity : public ModuleBase {
 public:
  explicit CosineSimilarity(const CosineSimilarityOptions& options = {}) : options(options) {}
  Tensor forward(TensorView x1, TensorView x2) const;
  FP_MODULE_CALL()
  CosineSimilarityOptions options;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.PairwiseDistance.html
class PairwiseDistance : public ModuleBase {
 public:
  explicit PairwiseDistance(const PairwiseDistanceOptions& options = {}) : options(options) {}
  Tensor forward(TensorView x1, TensorView x2) const;
  FP_MODULE_CALL()
  PairwiseDistanceOptions options;
};

}  // namespace fp::nn
