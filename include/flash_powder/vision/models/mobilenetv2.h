// torchvision's MobileNetV2: inverted residual blocks with ReLU6, with
// torchvision's state-dict keys ("features.0.0.weight",
// "features.2.conv.1.0.weight", "features.2.conv.3.running_var", ...).
// https://pytorch.org/vision/stable/models/mobilenetv2.html
//
//     auto net = fp::vision::models::mobilenet_v2();
//     net.load_state_dict(fp::safetensors::MappedFile::open("mobilenet_v2.safetensors"));
//     fp::Tensor logits = net(batch);  // [N, 1000]
#pragma once

#include <cstdint>

#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/module.h"

namespace fp::vision::models {

/// The keyword arguments of torchvision's mobilenet_v2.
struct MobileNetV2Options {
  /// The number of classes the classifier maps to (fp::Error when negative).
  std::int64_t num_classes = 1000;
  /// Scales every layer's channels.
  double width_mult = 1.0;
  /// Channels are rounded to a multiple of this.
  std::int64_t round_nearest = 8;
  /// The classifier's dropout probability; the identity in inference.
  double dropout = 0.2;
};

/// torchvision.models.mobilenetv2.InvertedResidual (spelled with a V2 here,
/// MobileNetV3's block having the same name): `conv` is expand (when
/// `expand_ratio` is not 1), depthwise and project; the input is added back
/// when the shape allows.
class InvertedResidualV2 : public nn::Module {
 public:
  /// `InvertedResidual(inp, oup, stride, expand_ratio)`; fp::Error for a
  /// stride other than 1 or 2.
  InvertedResidualV2(std::int64_t inp, std::int64_t oup, std::int64_t stride,
                     std::int64_t expand_ratio);

  void visit(nn::Visitor& visitor) override;
  Tensor forward(TensorView input) const override;

  /// Expansion (when expand_ratio is not 1), depthwise, projection.
  nn::Sequential conv;
  /// Whether the input is added back (stride 1, inp == oup).
  bool use_res_connect;
};

/// torchvision.models.MobileNetV2: `features`, global average pooling,
/// `classifier` (dropout, linear).
class MobileNetV2 : public nn::Module {
 public:
  /// `MobileNetV2(num_classes, width_mult, round_nearest, dropout)`.
  explicit MobileNetV2(const MobileNetV2Options& options = {});

  void visit(nn::Visitor& visitor) override;
  /// [N, 3, H, W] float images -> [N, num_classes] logits.
  Tensor forward(TensorView input) const override;

  /// The stem, the inverted residual blocks and the last 1x1 convolution.
  nn::Sequential features;
  /// Dropout, then the linear layer.
  nn::Sequential classifier;
};

/// https://pytorch.org/vision/stable/models/generated/torchvision.models.mobilenet_v2.html
MobileNetV2 mobilenet_v2(const MobileNetV2Options& options = {});

}  // namespace fp::vision::models
