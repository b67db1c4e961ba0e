// torchvision/ops/misc.py's Permute and SqueezeExcitation, and
// torchvision/ops/stochastic_depth.py's StochasticDepth in eval mode.
#include "flash_powder/vision/ops/misc.h"

#include <string>
#include <utility>

#include "base/text.h"
#include "flash_powder/base/error.h"
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

Tensor Permute::forward(TensorView input) const {
  return input.permute(dims).to_owned();
}

StochasticDepth::StochasticDepth(double p, std::string mode) : p(p), mode(std::move(mode)) {
  if (!(p >= 0.0 && p <= 1.0))
    throw Error(ErrorCode::BadArgument,
                "StochasticDepth: drop probability has to be between 0 and 1, but got " +
                    detail::python_float(p));
  if (this->mode != "batch" && this->mode != "row")
    throw Error(ErrorCode::BadArgument,
                "StochasticDepth: mode has to be either 'batch' or 'row', but got " + this->mode);
}

Tensor StochasticDepth::forward(TensorView input) const {
  return input.to_owned();
}

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
