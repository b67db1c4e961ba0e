// torchvision.ops.FeaturePyramidNetwork with its extra blocks
// LastLevelMaxPool and LastLevelP6P7: the detection models' neck.
// https://pytorch.org/vision/stable/generated/torchvision.ops.FeaturePyramidNetwork.html
//
//     fp::vision::ops::FeaturePyramidNetwork fpn({256, 512, 1024, 2048}, 256,
//                                                {.extra_blocks = fp::vision::ops::LastLevelMaxPool()});
//     fp::vision::ops::FeatureMaps out = fpn({{"0", c2}, {"1", c3}, {"2", c4}, {"3", c5}});
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "flash_powder/nn/define.h"
#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/module.h"
#include "flash_powder/vision/ops/conv_norm_activation.h"

namespace fp::vision::ops {

/// Named feature maps in order, like the OrderedDict torchvision's FPN and
/// poolers take and return.
using FeatureMaps = std::vector<std::pair<std::string, Tensor>>;

/// torchvision.ops.feature_pyramid_network.LastLevelMaxPool: adds "pool",
/// the last result max-pooled with kernel 1 and stride 2.
class LastLevelMaxPool : public nn::ModuleBase {
 public:
  void visit(nn::Visitor& visitor) override;
  /// Appends the pooled map to `results` and "pool" to `names`.
  void forward(std::vector<Tensor>& results, const std::vector<TensorView>& inputs,
               std::vector<std::string>& names) const;
};

/// torchvision.ops.feature_pyramid_network.LastLevelP6P7 (RetinaNet's): adds
/// "p6" and "p7", 3x3 stride-2 convolutions of P5 (when in_channels ==
/// out_channels) or of C5; keys "p6.weight", "p7.bias", ...
class LastLevelP6P7 : public nn::ModuleBase {
 public:
  /// From `in_channels` to `out_channels`.
  LastLevelP6P7(std::int64_t in_channels, std::int64_t out_channels);
  void visit(nn::Visitor& visitor) override;
  /// Appends p6 and p7 to `results` and their names to `names`.
  void forward(std::vector<Tensor>& results, const std::vector<TensorView>& inputs,
               std::vector<std::string>& names) const;

  /// The convolution making P6.
  nn::Conv2d p6;
  /// The convolution making P7 from relu(P6).
  nn::Conv2d p7;
  /// Whether P6 is made from P5 (else from C5).
  bool use_P5;  // NOLINT(readability-identifier-naming): torchvision's name
};

/// FeaturePyramidNetwork's keyword arguments, with torchvision's defaults.
struct FeaturePyramidNetworkOptions {
  /// The block adding maps after the pyramid's own, if any ("extra_blocks").
  std::variant<std::monostate, LastLevelMaxPool, LastLevelP6P7> extra_blocks{};
  /// The norm of the inner and layer blocks (none: their convolutions have a bias).
  NormLayer norm_layer = NormLayer::None;
};

/// torchvision.ops.FeaturePyramidNetwork: keys "inner_blocks.I.0.weight"
/// (1x1 lateral convolutions), "layer_blocks.I.0.weight" (3x3 output
/// convolutions), "extra_blocks.p6.weight" with LastLevelP6P7.
class FeaturePyramidNetwork : public nn::ModuleBase {
 public:
  /// One level per entry of `in_channels_list`, each to `out_channels`.
  /// Throws fp::Error (BadArgument) for no levels or a level of 0 channels.
  FeaturePyramidNetwork(const std::vector<std::int64_t>& in_channels_list,
                        std::int64_t out_channels, FeaturePyramidNetworkOptions options = {});

  void visit(nn::Visitor& visitor) override;
  /// The pyramid of `x` (finest first, one map per level, as given), under
  /// the same names, then the extra blocks' maps. Throws fp::Error
  /// (BadArgument) when the number of maps is not the number of levels.
  FeatureMaps forward(const FeatureMaps& x) const;
  FP_MODULE_CALL()

  /// The lateral 1x1 convolutions.
  nn::ModuleListOf<Conv2dNormActivation> inner_blocks;
  /// The 3x3 output convolutions.
  nn::ModuleListOf<Conv2dNormActivation> layer_blocks;
  /// The extra block, if any.
  std::variant<std::monostate, LastLevelMaxPool, LastLevelP6P7> extra_blocks;
};

}  // namespace fp::vision::ops
