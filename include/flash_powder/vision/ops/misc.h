// The layers of torchvision.ops that torchvision's classifiers share:
// Permute, StochasticDepth and SqueezeExcitation.
// https://pytorch.org/vision/stable/ops.html#layers
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "flash_powder/core/array_ref.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/layers/pooling.h"
#include "flash_powder/nn/module.h"

namespace fp::vision::ops {

/// torchvision.ops.misc.Permute: `torch.permute(input, dims)`. The result is
/// a new Tensor with the permuted strides of Python's view (a lazy clone),
/// so that the layers after it see the memory layout they see in Python.
class Permute : public nn::Module {
 public:
  /// The dimensions in their new order.
  explicit Permute(IntList dims) : dims(dims.begin(), dims.end()) {}
  Tensor forward(TensorView input) const override;
  /// The dimensions in their new order.
  std::vector<std::int64_t> dims;
};

/// torchvision.ops.StochasticDepth: drops residual branches at random in
/// training, the identity in inference (which is all it does here).
/// https://pytorch.org/vision/stable/generated/torchvision.ops.StochasticDepth.html
class StochasticDepth : public nn::Module {
 public:
  /// Throws fp::Error, with torchvision's words, unless 0 <= p <= 1 and
  /// `mode` is "batch" or "row" (torchvision checks them in forward).
  explicit StochasticDepth(double p, std::string mode = "row");
  /// `input` itself, as a new Tensor (a lazy clone).
  Tensor forward(TensorView input) const override;
  /// The probability of dropping a branch in training.
  double p;
  /// "batch" (one draw for the batch) or "row" (one per sample).
  std::string mode;
};

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
