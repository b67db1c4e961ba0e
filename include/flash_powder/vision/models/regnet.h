// torchvision's RegNet (RegNetY with squeeze-excitation, RegNetX without),
// with its state-dict keys ("stem.0.weight", "trunk_output.block1.block1-0.proj.0.weight",
// "trunk_output.block2.block2-1.f.se.fc1.bias", "fc.weight", ...).
// https://pytorch.org/vision/stable/models/regnet.html
//
//     auto net = fp::vision::models::regnet_y_400mf();
//     net.load_state_dict(fp::safetensors::MappedFile::open("regnet_y_400mf.safetensors"));
//     fp::Tensor logits = net(batch);  // [N, 1000]
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/layers/linear.h"
#include "flash_powder/nn/layers/pooling.h"
#include "flash_powder/nn/module.h"

namespace fp::vision::models {

/// The keyword arguments of torchvision's regnet_* builders (and RegNet's
/// but `stem_type`, `block_type`, `norm_layer` and `activation`, which
/// replace its layers).
struct RegNetOptions {
  /// The number of classes `fc` scores (fp::Error when negative).
  std::int64_t num_classes = 1000;
  /// The stem's channels.
  std::int64_t stem_width = 32;
};

/// torchvision.models.regnet.BlockParams: the stages' depths, widths, group
/// widths, bottleneck multipliers and strides, and the squeeze-excitation ratio.
struct BlockParams {
  /// Blocks per stage.
  std::vector<std::int64_t> depths;
  /// Channels out of each stage.
  std::vector<std::int64_t> widths;
  /// Channels per group of each stage's 3x3 convolution.
  std::vector<std::int64_t> group_widths;
  /// Each stage's bottleneck width per output channel.
  std::vector<double> bottleneck_multipliers;
  /// Each stage's first stride.
  std::vector<std::int64_t> strides;
  /// The squeeze-excitation's channels per input channel (none: RegNetX).
  std::optional<double> se_ratio;

  /// torchvision's `BlockParams.from_init_params(depth, w_0, w_a, w_m,
  /// group_width, bottleneck_multiplier, se_ratio)`: the block widths
  /// quantised in log space with torchvision's float32 tensor arithmetic
  /// (the same ATen kernels), grouped into stages, then widths and groups
  /// made compatible. fp::Error ("Invalid RegNet settings") unless w_a >= 0,
  /// w_0 > 0 and a multiple of 8, and w_m > 1.
  static BlockParams from_init_params(std::int64_t depth, std::int64_t w_0, double w_a, double w_m,
                                      std::int64_t group_width, double bottleneck_multiplier = 1.0,
                                      std::optional<double> se_ratio = std::nullopt);
};

/// torchvision.models.regnet.ResBottleneckBlock: `relu(proj(x) + f(x))`
/// (the input itself without `proj`), `f` being BottleneckTransform's 1x1
/// "a", grouped 3x3 "b", squeeze-excitation "se" (with se_ratio) and 1x1 "c".
class ResBottleneckBlock : public nn::Module {
 public:
  /// torchvision's `ResBottleneckBlock(width_in, width_out, stride, norm_layer,
  /// activation_layer, group_width, bottleneck_multiplier, se_ratio)` with
  /// BatchNorm2d and ReLU.
  ResBottleneckBlock(std::int64_t width_in, std::int64_t width_out, std::int64_t stride,
                     std::int64_t group_width = 1, double bottleneck_multiplier = 1.0,
                     std::optional<double> se_ratio = std::nullopt);

  void visit(nn::Visitor& visitor) override;
  /// [N, width_in, H, W] -> [N, width_out, H / stride, W / stride]; a new Tensor.
  Tensor forward(TensorView input) const override;

  /// The projected shortcut (1x1 convolution and BatchNorm), when the shape changes.
  std::optional<nn::Sequential> proj;
  /// The bottleneck transform.
  nn::Sequential f;
};

/// torchvision.models.RegNet: `stem`, `trunk_output` (stages "block1", ...,
/// of blocks "block1-0", ...), `avgpool`, `fc`.
class RegNet : public nn::Module {
 public:
  /// The network of `params`.
  explicit RegNet(const BlockParams& params, const RegNetOptions& options = {});

  void visit(nn::Visitor& visitor) override;
  /// [N, 3, H, W] float images -> [N, num_classes] logits.
  Tensor forward(TensorView input) const override;

  /// 3x3 convolution of stride 2, BatchNorm, ReLU.
  nn::Sequential stem;
  /// The stages.
  nn::Sequential trunk_output;
  /// Pools each channel to one value.
  nn::AdaptiveAvgPool2d avgpool{{1, 1}};
  /// The classifier.
  nn::Linear fc;
};

/// https://pytorch.org/vision/stable/models/generated/torchvision.models.regnet_y_400mf.html
RegNet regnet_y_400mf(const RegNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.regnet_y_800mf.html
RegNet regnet_y_800mf(const RegNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.regnet_y_1_6gf.html
RegNet regnet_y_1_6gf(const RegNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.regnet_y_3_2gf.html
RegNet regnet_y_3_2gf(const RegNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.regnet_y_8gf.html
RegNet regnet_y_8gf(const RegNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.regnet_y_16gf.html
RegNet regnet_y_16gf(const RegNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.regnet_y_32gf.html
RegNet regnet_y_32gf(const RegNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.regnet_y_128gf.html
RegNet regnet_y_128gf(const RegNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.regnet_x_400mf.html
RegNet regnet_x_400mf(const RegNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.regnet_x_800mf.html
RegNet regnet_x_800mf(const RegNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.regnet_x_1_6gf.html
RegNet regnet_x_1_6gf(const RegNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.regnet_x_3_2gf.html
RegNet regnet_x_3_2gf(const RegNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.regnet_x_8gf.html
RegNet regnet_x_8gf(const RegNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.regnet_x_16gf.html
RegNet regnet_x_16gf(const RegNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.regnet_x_32gf.html
RegNet regnet_x_32gf(const RegNetOptions& options = {});

}  // namespace fp::vision::models
