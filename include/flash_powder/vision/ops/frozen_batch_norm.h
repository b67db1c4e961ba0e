// torchvision.ops.FrozenBatchNorm2d: BatchNorm2d with fixed statistics and
// affine parameters, what torchvision's detection backbones use.
// https://pytorch.org/vision/stable/generated/torchvision.ops.FrozenBatchNorm2d.html
#pragma once

#include <cstdint>

#include "flash_powder/nn/module.h"

namespace fp::vision::ops {

/// FrozenBatchNorm2d's arithmetic over [C] statistics and affine
/// parameters: `input * scale + shift`, scale = weight * rsqrt(running_var
/// + eps), shift = bias - running_mean * scale, in torchvision's order. A new Tensor.
Tensor frozen_batch_norm(TensorView input, TensorView weight, TensorView bias,
                         TensorView running_mean, TensorView running_var, double eps);

/// torchvision.ops.FrozenBatchNorm2d: `x * scale + shift` with scale =
/// weight * rsqrt(running_var + eps) and shift = bias - running_mean *
/// scale, in torchvision's order. Buffers "weight" (ones), "bias" (zeros),
/// "running_mean" (zeros) and "running_var" (ones), float32.
class FrozenBatchNorm2d : public nn::Module {
 public:
  /// Over `num_features` channels.
  explicit FrozenBatchNorm2d(std::int64_t num_features, double eps = 1e-5);

  void visit(nn::Visitor& visitor) override;
  /// [N, C, H, W] (or any input that broadcasts with [1, C, 1, 1]) -> a new
  /// Tensor of its shape.
  Tensor forward(TensorView input) const override;

  /// Added to the variance before its square root.
  double eps;
  /// [C] scale.
  Tensor weight;
  /// [C] shift.
  Tensor bias;
  /// [C] means.
  Tensor running_mean;
  /// [C] variances.
  Tensor running_var;
};

}  // namespace fp::vision::ops
