// torchvision/ops/misc.py's SqueezeExcitation.
#include "flash_powder/vision/ops/misc.h"

#include "flash_powder/core/operators.h"
#include "flash_powder/functional/activation.h"

namespace fp::vision::ops {
namespace {

Tensor activate(SqueezeActivation activation, TensorArg input) {
  switch (activation) {
    case SqueezeActivation::ReLU:
      return functional::relu(input);
    case SqueezeActivation::SiLU:
      return functional::silu(input);
    case SqueezeActivation::Sigmoid:
      return functional::sigmoid(input);
    case SqueezeActivation::Hardsigmoid:
      break;
  }
  return functional::hardsigmoid(input);
}

}  // namespace

SqueezeExcitation::SqueezeExcitation(std::int64_t input_channels, std::int64_t squeeze_channels,
                                     const SqueezeExcitationOptions& options)
    : fc1(input_channels, squeeze_channels, 1),
      fc2(squeeze_channels, input_channels, 1),
      options(options) {}

void SqueezeExcitation::visit(nn::Visitor& visitor) {
  visitor.child("avgpool", avgpool);
  visitor.child("fc1", fc1);
  visitor.child("fc2", fc2);
}

Tensor SqueezeExcitation::forward(TensorView input) const {
  const Tensor squeezed = activate(options.activation, fc1(avgpool(input)));
  return activate(options.scale_activation, fc2(squeezed)) * input;
}

}  // namespace fp::vision::ops
