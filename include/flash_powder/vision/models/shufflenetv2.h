// torchvision's ShuffleNetV2, with its state-dict keys ("conv1.0.weight",
// "stage2.0.branch1.0.weight", "stage3.1.branch2.3.weight", "fc.bias", ...).
// https://pytorch.org/vision/stable/models/shufflenetv2.html
//
//     auto net = fp::vision::models::shufflenet_v2_x1_0();
//     net.load_state_dict(fp::safetensors::MappedFile::open("shufflenet_v2_x1_0.safetensors"));
//     fp::Tensor logits = net(batch);  // [N, 1000]
#pragma once

#include <array>
#include <cstdint>

#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/layers/linear.h"
#include "flash_powder/nn/layers/pooling.h"
#include "flash_powder/nn/module.h"

namespace fp::vision::models {

/// The keyword arguments of torchvision's shufflenet_v2 constructors.
struct ShuffleNetV2Options {
  /// The number of classes `fc` maps to (fp::Error when negative).
  std::int64_t num_classes = 1000;
};

/// torchvision.models.shufflenetv2.InvertedResidual (spelled ShuffleUnit
/// here, MobileNet's blocks having that name): with stride 1 the input's
/// second half of channels goes through `branch2` and the first half passes;
/// with stride 2 the whole input goes through both branches. The halves are
/// concatenated and their channels shuffled (2 groups). `branch1` is empty
/// (no keys) with stride 1.
class ShuffleUnit : public nn::Module {
 public:
  /// InvertedResidual(inp, oup, stride): stride 1 to 3, and with stride 1
  /// `inp` must be `oup // 2 * 2`; fp::Error otherwise, with torchvision's
  /// message.
  ShuffleUnit(std::int64_t inp, std::int64_t oup, std::int64_t stride);

  void visit(nn::Visitor& visitor) override;
  Tensor forward(TensorView input) const override;

  /// The depthwise convolutions' stride (1 keeps the size, 2 halves it).
  std::int64_t stride;
  /// With stride > 1: depthwise 3x3 convolution, BatchNorm, 1x1 convolution,
  /// BatchNorm, ReLU; empty with stride 1.
  nn::Sequential branch1;
  /// 1x1 convolution, BatchNorm, ReLU, depthwise 3x3 convolution, BatchNorm,
  /// 1x1 convolution, BatchNorm, ReLU.
  nn::Sequential branch2;
};

/// torchvision.models.ShuffleNetV2: `conv1`, `maxpool`, `stage2` .. `stage4`,
/// `conv5`, a global mean and `fc`.
class ShuffleNetV2 : public nn::Module {
 public:
  /// stages_repeats: the units of stage2..4; stages_out_channels: the
  /// channels of conv1, the three stages and conv5.
  ShuffleNetV2(std::array<std::int64_t, 3> stages_repeats,
               std::array<std::int64_t, 5> stages_out_channels,
               const ShuffleNetV2Options& options = {});

  void visit(nn::Visitor& visitor) override;
  /// [N, 3, H, W] float images -> [N, num_classes] logits.
  Tensor forward(TensorView input) const override;

  /// The stem: 3x3 convolution of stride 2, BatchNorm, ReLU.
  nn::Sequential conv1;
  /// 3x3 max-pool of stride 2 (no keys).
  nn::MaxPool2d maxpool;
  /// A ShuffleUnit of stride 2, then stride-1 units.
  nn::Sequential stage2;
  /// A ShuffleUnit of stride 2, then stride-1 units.
  nn::Sequential stage3;
  /// A ShuffleUnit of stride 2, then stride-1 units.
  nn::Sequential stage4;
  /// 1x1 convolution, BatchNorm, ReLU.
  nn::Sequential conv5;
  /// The classifier, after the mean over height and width.
  nn::Linear fc;
};

/// ShuffleNetV2 with 0.5x output channels (stages 48, 96, 192).
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.shufflenet_v2_x0_5.html
ShuffleNetV2 shufflenet_v2_x0_5(const ShuffleNetV2Options& options = {});
/// ShuffleNetV2 with 1.0x output channels (stages 116, 232, 464).
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.shufflenet_v2_x1_0.html
ShuffleNetV2 shufflenet_v2_x1_0(const ShuffleNetV2Options& options = {});
/// ShuffleNetV2 with 1.5x output channels (stages 176, 352, 704).
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.shufflenet_v2_x1_5.html
ShuffleNetV2 shufflenet_v2_x1_5(const ShuffleNetV2Options& options = {});
/// ShuffleNetV2 with 2.0x output channels (stages 244, 488, 976; conv5 2048).
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.shufflenet_v2_x2_0.html
ShuffleNetV2 shufflenet_v2_x2_0(const ShuffleNetV2Options& options = {});

}  // namespace fp::vision::models
