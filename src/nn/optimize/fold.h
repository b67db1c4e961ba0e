// BatchNorm folded into the convolution before it, with the arithmetic of a
// frozen AOTInductor model.
#pragma once

#include <utility>

#include "flash_powder/core/tensor.h"
#include "flash_powder/nn/layers/normalization.h"

namespace fp::nn::detail {

/// What folding reads of a BatchNorm (eval mode, running statistics), kept
/// by value: copies of its tensors are copy-on-write and cost no memory
/// while neither side writes, so a plan can fold again later (its eager
/// fallback, plans.h) without holding on to the layer.
struct NormToFold {
  Tensor weight;
  Tensor bias;
  Tensor running_mean;
  Tensor running_var;
  double eps = 0.0;

  explicit NormToFold(const BatchNorm& bn)
      : weight(bn.weight),
        bias(bn.bias),
        running_mean(bn.running_mean),
        running_var(bn.running_var),
        eps(bn.options.eps) {}
};

/// The (weight, bias) of a convolution with `bn` folded in: what Inductor's
/// freezing passes make of `bn(conv(x))` once torch.export has decomposed
/// the BatchNorm into `(x - mean) * invstd * weight + bias` (invstd = 1 /
/// sqrt(var + eps), torch/_decomp/decompositions.py) and binary folding has
/// moved each step into the convolution's weight and bias
/// (torch/_inductor/fx_passes/binary_folding.py), one ATen op at a time:
///   w' = (w * invstd) * weight,  b' = ((b - mean) * invstd) * weight + bias
/// with b = 0 for a convolution without bias, and the weight and bias steps
/// left out for a BatchNorm without them (`.affine = false`). Every step is
/// one float32 ATen kernel, so the result is the frozen package's bit for bit.
std::pair<Tensor, Tensor> fold_batch_norm(const Tensor& conv_weight, const Tensor& conv_bias,
                                          const NormToFold& bn);

}  // namespace fp::nn::detail
