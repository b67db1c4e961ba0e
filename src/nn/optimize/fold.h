// BatchNorm folded into the convolution before it, with the arithmetic of a
// frozen AOTInductor model.
#pragma once

#include <utility>

#include "flash_powder/core/tensor.h"
#include "flash_powder/nn/layers/normalization.h"

namespace fp::nn::detail {

/// The (weight, bias) of a convolution with `bn` (eval mode, running
/// statistics) folded in: what Inductor's freezing passes make of
/// `bn(conv(x))` once torch.export has decomposed the BatchNorm into
/// `(x - mean) * invstd * weight + bias` (invstd = 1 / sqrt(var + eps),
/// torch/_decomp/decompositions.py) and binary folding has moved each step
/// into the convolution's weight and bias
/// (torch/_inductor/fx_passes/binary_folding.py), one ATen op at a time:
///   w' = (w * invstd) * weight,  b' = ((b - mean) * invstd) * weight + bias
/// with b = 0 for a convolution without bias, and the weight and bias steps
/// left out for a BatchNorm without them (`.affine = false`). Every step is
/// one float32 ATen kernel, so the result is the frozen package's bit for bit.
std::pair<Tensor, Tensor> fold_batch_norm(const Tensor& conv_weight, const Tensor& conv_bias,
                                          const BatchNorm& bn);

}  // namespace fp::nn::detail
