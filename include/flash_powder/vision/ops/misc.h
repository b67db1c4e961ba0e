// torchvision.ops.SqueezeExcitation, which MobileNetV3, EfficientNet and
// RegNet share. https://pytorch.org/vision/stable/ops.html#layers
#pragma once

#include <cstdint>

#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/layers/pooling.h"
#include "flash_powder/nn/module.h"

namespace fp::vision::ops {

/// The activations SqueezeExcitation can apply (torchvision passes a layer).
enum class SqueezeActivation { ReLU, SiLU, Sigmoid, Hardsigmoid };

/// SqueezeExcitation's keyword arguments, with torchvision's defaults.
struct SqueezeExcitationOptions {
  /// Applied after fc1 (torchvision's `activation`, delta).
  SqueezeActivation activation = SqueezeActivation::ReLU;
  /// Applied after fc2 to make the scale (`scale_activation`, sigma).
  SqueezeActivation scale_activation = SqueezeActivation::Sigmoid;
};

/// torchvision.ops.SqueezeExcitation: `input * scale_activation(fc2(
/// activation(fc1(avgpool(input)))))`, keys "fc1.weight", "fc2.bias", ...
/// https://pytorch.org/vision/stable/generated/torchvision.ops.SqueezeExcitation.html
class SqueezeExcitation : public nn::Module {
 public:
  /// Squeezes `input_channels` to `squeeze_channels` and back.
  SqueezeExcitation(std::int64_t input_channels, std::int64_t squeeze_channels,
                    const SqueezeExcitationOptions& options = {});

  void visit(nn::Visitor& visitor) override;
  /// [N, C, H, W] -> the same, each channel scaled; a new Tensor.
  Tensor forward(TensorView input) const override;

  /// Pools each channel to one value.
  nn::AdaptiveAvgPool2d avgpool{{1, 1}};
  /// The squeezing 1x1 convolution.
  nn::Conv2d fc1;
  /// The expanding 1x1 convolution.
  nn::Conv2d fc2;
  /// Its activations.
  SqueezeExcitationOptions options;
};

}  // namespace fp::vision::ops
