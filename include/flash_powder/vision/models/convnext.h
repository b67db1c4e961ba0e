// torchvision's ConvNeXt (tiny, small, base, large), with its state-dict keys
// ("features.1.0.layer_scale", "features.1.0.block.2.weight",
// "classifier.0.bias", ...). https://pytorch.org/vision/stable/models/convnext.html
//
//     auto net = fp::vision::models::convnext_tiny();
//     net.load_state_dict(fp::safetensors::MappedFile::open("convnext_tiny.safetensors"));
//     fp::Tensor logits = net(batch);  // [N, 1000]
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/layers/normalization.h"
#include "flash_powder/nn/layers/pooling.h"
#include "flash_powder/nn/module.h"
#include "flash_powder/vision/ops/misc.h"
#include "flash_powder/vision/ops/permute.h"
#include "flash_powder/vision/ops/stochastic_depth.h"

namespace fp::vision::models {

/// The keyword arguments of torchvision's convnext_* builders and ConvNeXt
/// (but `block` and `norm_layer`, which replace its layers).
struct ConvNeXtOptions {
  /// The number of classes the classifier scores (fp::Error when negative).
  std::int64_t num_classes = 1000;
  /// The stochastic depth of the last block (training only; each block's
  /// grows linearly to it); unset: the builder's (0.1 tiny, 0.4 small, 0.5
  /// base and large; 0 for ConvNeXt itself). fp::Error unless in [0, 1].
  std::optional<double> stochastic_depth_prob = std::nullopt;
  /// The initial value of each block's `layer_scale`.
  double layer_scale = 1e-6;
};

/// torchvision.models.convnext.LayerNorm2d: nn::LayerNorm over the channels
/// of an [N, C, H, W] tensor (permuted to channels last and back, as in Python).
class LayerNorm2d : public nn::LayerNorm {
 public:
  /// A layer norm over `channels` channels.
  explicit LayerNorm2d(std::int64_t channels, const nn::LayerNormOptions& options = {.eps = 1e-6})
      : nn::LayerNorm({channels}, options) {}
  /// [N, C, H, W] -> the same, normalised per pixel; a new Tensor.
  Tensor forward(TensorView input) const override;
};

/// One row of torchvision's block setting (CNBlockConfig).
struct CNBlockConfig {
  /// The stage's channels.
  std::int64_t input_channels;
  /// The channels after the downsampling that follows the stage (none after the last).
  std::optional<std::int64_t> out_channels;
  /// The stage's blocks.
  std::int64_t num_layers;
};

/// torchvision.models.convnext.CNBlock: `layer_scale * block(input) +
/// input`, `block` being a 7x7 depthwise convolution, LayerNorm (channels
/// last), Linear to 4 x dim, GELU, Linear back.
class CNBlock : public nn::Module {
 public:
  /// `CNBlock(dim, layer_scale, stochastic_depth_prob)`.
  CNBlock(std::int64_t dim, double layer_scale, double stochastic_depth_prob);

  void visit(nn::Visitor& visitor) override;
  /// [N, dim, H, W] -> the same; a new Tensor.
  Tensor forward(TensorView input) const override;

  /// The residual branch (keys "block.0" ... "block.5").
  nn::Sequential block;
  /// [dim, 1, 1], the branch's per-channel scale.
  Tensor layer_scale;
  /// The identity in inference.
  ops::StochasticDepth stochastic_depth;
};

/// torchvision.models.ConvNeXt: `features` (stem, stages and downsampling
/// layers), `avgpool`, `classifier` (LayerNorm2d, Flatten, Linear).
class ConvNeXt : public nn::Module {
 public:
  /// The network of `block_setting` (fp::Error when empty or of one block
  /// in all, which torchvision cannot build either).
  explicit ConvNeXt(const std::vector<CNBlockConfig>& block_setting,
                    const ConvNeXtOptions& options = {});

  void visit(nn::Visitor& visitor) override;
  /// [N, 3, H, W] float images (H and W at least 32) -> [N, num_classes] logits.
  Tensor forward(TensorView input) const override;

  /// The convolutional trunk.
  nn::Sequential features;
  /// Pools each channel to one value.
  nn::AdaptiveAvgPool2d avgpool{{1, 1}};
  /// LayerNorm2d, Flatten, Linear.
  nn::Sequential classifier;
};

/// https://pytorch.org/vision/stable/models/generated/torchvision.models.convnext_tiny.html
ConvNeXt convnext_tiny(const ConvNeXtOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.convnext_small.html
ConvNeXt convnext_small(const ConvNeXtOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.convnext_base.html
ConvNeXt convnext_base(const ConvNeXtOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.convnext_large.html
ConvNeXt convnext_large(const ConvNeXtOptions& options = {});

}  // namespace fp::vision::models
