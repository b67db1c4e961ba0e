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
#include "flash_powder/vision/ops/conv_norm_activation.h"
#include "flash_powder/vision/ops/misc.h"

namespace fp::vision::models {

/// The keyword arguments of torchvision's mobilenet_v3_small and _large.
struct MobileNetV3Options {
  /// The number of classes the classifier scores.
  std::int64_t num_classes = 1000;
  /// The classifier's dropout probability; the identity in inference.
  double dropout = 0.2;
  /// Whether the last stage (C4 and the blocks after it) dilates its depthwise
  /// convolutions by 2 instead of striding (torchvision's `dilated`, which
  /// the segmentation backbones set: features at 1/16 of the input size).
  bool dilated = false;
  /// The BatchNorms' eps: MobileNetV3's own 0.001, or 1e-5 where torchvision
  /// passes `norm_layer=nn.BatchNorm2d` (the detection backbones).
  double norm_eps = 0.001;
  /// The norms: BatchNorm2d, or FrozenBatchNorm2d (torchvision's detection
  /// builders given weights pass `norm_layer=FrozenBatchNorm2d`, eps 1e-5).
  ops::NormLayer norm_layer = ops::NormLayer::BatchNorm2d;
  /// Every block's channels scaled by this (rounded to multiples of 8).
  double width_mult = 1.0;
  /// Whether the last stage (C4 on) and the classifier's width are halved
  /// (torchvision's `reduced_tail`, which ssdlite320_mobilenet_v3_large sets
  /// when built without backbone weights).
  bool reduced_tail = false;
};

/// One row of torchvision's `inverted_residual_setting`.
struct InvertedResidualConfig {
  /// Channels in.
  std::int64_t input_channels;
  /// The depthwise convolution's kernel size.
  std::int64_t kernel;
  /// Channels after the expansion.
  std::int64_t expanded_channels;
  /// Channels out.
  std::int64_t out_channels;
  /// Whether the block has a squeeze-excitation.
  bool use_se;
  /// Hardswish; ReLU otherwise.
  bool use_hs;
  /// The depthwise convolution's stride (1 where `dilation` > 1: the block
  /// dilates instead, but counts as strided for is_cn and the residual).
  std::int64_t stride;
  /// The depthwise convolution's dilation.
  std::int64_t dilation = 1;
  /// The block's BatchNorms' eps (MobileNetV3Options::norm_eps).
  double norm_eps = 0.001;
  /// Whether the block's norms are FrozenBatchNorm2d (MobileNetV3Options::norm_layer).
  bool frozen_norm = false;
};

/// torchvision.models.mobilenetv3.InvertedResidual: `block` is expand (when
/// the width changes), depthwise, squeeze-excitation (when configured; ops::SqueezeExcitation
/// with a hardsigmoid scale) and
/// project; the input is added back when the shape allows.
class InvertedResidual : public nn::Module {
 public:
  /// The block of one row of the setting.
  explicit InvertedResidual(const InvertedResidualConfig& config);

  void visit(nn::Visitor& visitor) override;
  Tensor forward(TensorView input) const override;

  /// The layers, in order (torchvision's keys "block.0....").
  nn::Sequential block;
  /// Whether the input is added to the result (stride 1 and as many channels out as in).
  bool use_res_connect;
  /// Channels out (torchvision's `out_channels`).
  std::int64_t out_channels;
  /// Whether the configured stride is above 1: the first block of a stage
  /// (torchvision's `_is_cn`, where the segmentation models tap features).
  bool is_cn;
};

/// torchvision.models.MobileNetV3: `features`, `avgpool`, `classifier`.
class MobileNetV3 : public nn::Module {
 public:
  /// The network of torchvision's `_mobilenet_v3`: the blocks of `setting`, then a last
  /// convolution to 6 x the last block's channels and a classifier through `last_channel`.
  MobileNetV3(const std::vector<InvertedResidualConfig>& setting, std::int64_t last_channel,
              const MobileNetV3Options& options = {});

  void visit(nn::Visitor& visitor) override;
  /// [N, 3, H, W] float images -> [N, num_classes] logits.
  Tensor forward(TensorView input) const override;

  /// The convolutional trunk.
  nn::Sequential features;
  /// Pools each channel to one value.
  nn::AdaptiveAvgPool2d avgpool{{1, 1}};
  /// Linear, Hardswish, Dropout, Linear.
  nn::Sequential classifier;
};

/// https://pytorch.org/vision/stable/models/generated/torchvision.models.mobilenet_v3_small.html
MobileNetV3 mobilenet_v3_small(const MobileNetV3Options& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.mobilenet_v3_large.html
MobileNetV3 mobilenet_v3_large(const MobileNetV3Options& options = {});

}  // namespace fp::vision::models
