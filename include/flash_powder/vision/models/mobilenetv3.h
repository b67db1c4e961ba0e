// torchvision's MobileNetV3 (Small and Large): inverted residual blocks with
// squeeze-and-excitation and hardswish, with torchvision's state-dict keys
// ("features.1.block.0.0.weight", "features.1.block.1.fc1.bias", ...).
// https://pytorch.org/vision/stable/models/mobilenetv3.html
#pragma once

#include <cstdint>
#include <vector>

#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/layers/pooling.h"
#include "flash_powder/nn/module.h"

namespace fp::vision::models {

/// The keyword arguments of torchvision's mobilenet_v3_small and _large.
struct MobileNetV3Options {
  std::int64_t num_classes = 1000;
  /// The classifier's dropout probability; the identity in inference.
  double dropout = 0.2;
};

/// torchvision.ops.SqueezeExcitation with a hardsigmoid scale, as MobileNetV3
/// uses it: `input * hardsigmoid(fc2(relu(fc1(avgpool(input)))))`.
class SqueezeExcitation : public nn::Module {
 public:
  SqueezeExcitation(std::int64_t input_channels, std::int64_t squeeze_channels);

  void visit(nn::Visitor& visitor) override;
  Tensor forward(TensorView input) const override;

  nn::AdaptiveAvgPool2d avgpool{{1, 1}};
  nn::Conv2d fc1;
  nn::Conv2d fc2;
};

/// One row of torchvision's `inverted_residual_setting`.
struct InvertedResidualConfig {
  std::int64_t input_channels;
  std::int64_t kernel;
  std::int64_t expanded_channels;
  std::int64_t out_channels;
  bool use_se;
  /// Hardswish; ReLU otherwise.
  bool use_hs;
  std::int64_t stride;
};

/// torchvision.models.mobilenetv3.InvertedResidual: `block` is expand (when
/// the width changes), depthwise, squeeze-excitation (when configured) and
/// project; the input is added back when the shape allows.
class InvertedResidual : public nn::Module {
 public:
  explicit InvertedResidual(const InvertedResidualConfig& config);

  void visit(nn::Visitor& visitor) override;
  Tensor forward(TensorView input) const override;

  nn::Sequential block;
  bool use_res_connect;
};

/// torchvision.models.MobileNetV3: `features`, `avgpool`, `classifier`.
class MobileNetV3 : public nn::Module {
 public:
  MobileNetV3(const std::vector<InvertedResidualConfig>& setting, std::int64_t last_channel,
              const MobileNetV3Options& options = {});

  void visit(nn::Visitor& visitor) override;
  /// [N, 3, H, W] float images -> [N, num_classes] logits.
  Tensor forward(TensorView input) const override;

  nn::Sequential features;
  nn::AdaptiveAvgPool2d avgpool{{1, 1}};
  nn::Sequential classifier;
};

/// https://pytorch.org/vision/stable/models/generated/torchvision.models.mobilenet_v3_small.html
MobileNetV3 mobilenet_v3_small(const MobileNetV3Options& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.mobilenet_v3_large.html
MobileNetV3 mobilenet_v3_large(const MobileNetV3Options& options = {});

}  // namespace fp::vision::models
