// torchvision/ops/misc.py's FrozenBatchNorm2d.
#include "flash_powder/vision/ops/frozen_batch_norm.h"

#include <string>

#include "flash_powder/core/factory.h"
#include "flash_powder/core/operators.h"

namespace fp::vision::ops {

FrozenBatchNorm2d::FrozenBatchNorm2d(std::int64_t num_features, double eps)
    : eps(eps),
      weight(fp::ones({num_features})),
      bias(fp::zeros({num_features})),
      running_mean(fp::zeros({num_features})),
      running_var(fp::ones({num_features})) {}

void FrozenBatchNorm2d::visit(nn::Visitor& visitor) {
  visitor.buffer("weight", weight);
  visitor.buffer("bias", bias);
  visitor.buffer("running_mean", running_mean);
  visitor.buffer("running_var", running_var);
}

Tensor frozen_batch_norm(TensorView input, TensorView weight, TensorView bias,
                         TensorView running_mean, TensorView running_var, double eps) {
  const Tensor w = weight.reshape({1, -1, 1, 1});
  const Tensor b = bias.reshape({1, -1, 1, 1});
  const Tensor rv = running_var.reshape({1, -1, 1, 1});
  const Tensor rm = running_mean.reshape({1, -1, 1, 1});
  const Tensor scale = w * (rv + eps).rsqrt();
  const Tensor shift = b - rm * scale;
  return input * scale + shift;
}

Tensor FrozenBatchNorm2d::forward(TensorView input) const {
  return frozen_batch_norm(input, weight, bias, running_mean, running_var, eps);
}

}  // namespace fp::vision::ops
