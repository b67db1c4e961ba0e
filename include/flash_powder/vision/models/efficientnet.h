// torchvision's EfficientNet (B0 to B7) and EfficientNetV2 (S, M, L), with
// its state-dict keys ("features.2.1.block.0.0.weight",
// "features.2.1.block.2.fc1.bias", "classifier.1.weight", ...).
// https://pytorch.org/vision/stable/models/efficientnet.html
// https://pytorch.org/vision/stable/models/efficientnetv2.html
//
//     auto net = fp::vision::models::efficientnet_b0();
//     net.load_state_dict(fp::safetensors::MappedFile::open("efficientnet_b0.safetensors"));
//     fp::Tensor logits = net(batch);  // [N, 1000]
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/layers/pooling.h"
#include "flash_powder/nn/module.h"
#include "flash_powder/vision/ops/misc.h"
#include "flash_powder/vision/ops/stochastic_depth.h"

namespace fp::vision::models {

/// The keyword arguments of torchvision's efficientnet_* builders.
struct EfficientNetOptions {
  /// The number of classes the classifier scores (fp::Error when negative).
  std::int64_t num_classes = 1000;
  /// The dropout probability before the classifier (the identity in
  /// inference); unset: the builder's (0.2 to 0.5).
  std::optional<double> dropout = std::nullopt;
  /// The stochastic depth of the blocks (training only; fp::Error unless in [0, 1]).
  double stochastic_depth_prob = 0.2;
};

/// One row of torchvision's inverted residual setting: MBConvConfig or,
/// with `fused`, FusedMBConvConfig (EfficientNetV2's first stages).
struct MBConvConfig {
  /// Expanded channels per input channel.
  double expand_ratio;
  /// The (depthwise, or fused) convolution's kernel size.
  std::int64_t kernel;
  /// The stage's first block's stride (1 or 2).
  std::int64_t stride;
  /// The stage's channels in.
  std::int64_t input_channels;
  /// The stage's channels out.
  std::int64_t out_channels;
  /// The stage's blocks.
  std::int64_t num_layers;
  /// A FusedMBConv stage (a full convolution instead of expansion and depthwise).
  bool fused = false;

  /// torchvision's `MBConvConfig(expand_ratio, kernel, stride, input_channels,
  /// out_channels, num_layers, width_mult, depth_mult)`: the channels scaled
  /// by `width_mult` to multiples of 8, the blocks by `depth_mult`, rounded up.
  static MBConvConfig scaled(double expand_ratio, std::int64_t kernel, std::int64_t stride,
                             std::int64_t input_channels, std::int64_t out_channels,
                             std::int64_t num_layers, double width_mult = 1.0,
                             double depth_mult = 1.0);
};

/// torchvision.models.efficientnet.MBConv and FusedMBConv (by the config's
/// `fused`): `block` (expansion, depthwise convolution and squeeze-excitation
/// then projection; or a fused convolution then projection), plus the input
/// when the shape allows.
class MBConv : public nn::Module {
 public:
  /// The block of `config` (fp::Error unless its stride is 1 or 2), with
  /// BatchNorm's `norm_eps`.
  MBConv(const MBConvConfig& config, double stochastic_depth_prob, double norm_eps = 1e-5);

  void visit(nn::Visitor& visitor) override;
  /// [N, input_channels, H, W] -> [N, out_channels, H / stride, W / stride].
  Tensor forward(TensorView input) const override;

  /// The layers (keys "block.0.0.weight", ...).
  nn::Sequential block;
  /// The identity in inference.
  ops::StochasticDepth stochastic_depth;
  /// Whether the input is added to the result.
  bool use_res_connect;
};

/// torchvision.models.EfficientNet: `features` (stem, stages, last 1x1
/// convolution), `avgpool`, `classifier` (Dropout, Linear).
class EfficientNet : public nn::Module {
 public:
  /// torchvision's `EfficientNet(inverted_residual_setting, dropout,
  /// stochastic_depth_prob, num_classes, norm_layer, last_channel)`, the
  /// norm layer being BatchNorm2d with eps `norm_eps`; without
  /// `last_channel`, 4 x the last stage's channels. fp::Error for an empty setting.
  EfficientNet(const std::vector<MBConvConfig>& setting, double dropout,
               double stochastic_depth_prob = 0.2, std::int64_t num_classes = 1000,
               double norm_eps = 1e-5, std::optional<std::int64_t> last_channel = std::nullopt);

  void visit(nn::Visitor& visitor) override;
  /// [N, 3, H, W] float images -> [N, num_classes] logits.
  Tensor forward(TensorView input) const override;

  /// The convolutional trunk.
  nn::Sequential features;
  /// Pools each channel to one value.
  nn::AdaptiveAvgPool2d avgpool{{1, 1}};
  /// Dropout, Linear.
  nn::Sequential classifier;
};

/// https://pytorch.org/vision/stable/models/generated/torchvision.models.efficientnet_b0.html
EfficientNet efficientnet_b0(const EfficientNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.efficientnet_b1.html
EfficientNet efficientnet_b1(const EfficientNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.efficientnet_b2.html
EfficientNet efficientnet_b2(const EfficientNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.efficientnet_b3.html
EfficientNet efficientnet_b3(const EfficientNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.efficientnet_b4.html
EfficientNet efficientnet_b4(const EfficientNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.efficientnet_b5.html
EfficientNet efficientnet_b5(const EfficientNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.efficientnet_b6.html
EfficientNet efficientnet_b6(const EfficientNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.efficientnet_b7.html
EfficientNet efficientnet_b7(const EfficientNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.efficientnet_v2_s.html
EfficientNet efficientnet_v2_s(const EfficientNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.efficientnet_v2_m.html
EfficientNet efficientnet_v2_m(const EfficientNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.efficientnet_v2_l.html
EfficientNet efficientnet_v2_l(const EfficientNetOptions& options = {});

}  // namespace fp::vision::models
