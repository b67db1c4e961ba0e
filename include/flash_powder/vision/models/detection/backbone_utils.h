// torchvision.models.detection.backbone_utils: a classifier's stages with a
// feature pyramid on top (BackboneWithFPN), the backbone of the R-CNN
// models. Keys "body.layer1.0.conv1.weight", "fpn.inner_blocks.0.0.weight".
//
// torchvision's resnet_fpn_backbone and mobilenet_backbone take the
// network's name and build it (FrozenBatchNorm2d by default); here they take
// the network, built with the options wanted (a ResNet with
// `.norm_layer = ops::NormLayer::FrozenBatchNorm2d` for torchvision's default).
#pragma once

#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "flash_powder/nn/define.h"
#include "flash_powder/nn/module.h"
#include "flash_powder/vision/models/intermediate_layer_getter.h"
#include "flash_powder/vision/models/mobilenetv3.h"
#include "flash_powder/vision/models/resnet.h"
#include "flash_powder/vision/ops/feature_pyramid_network.h"

namespace fp::vision::models::detection {

/// torchvision's BackboneWithFPN: `body`'s features through `fpn`.
class BackboneWithFPN : public nn::ModuleBase {
 public:
  /// `body` returning the maps "0", "1", ... (finest first) of
  /// `in_channels_list` channels, a pyramid of `out_channels` over them.
  BackboneWithFPN(IntermediateLayerGetter body, const std::vector<std::int64_t>& in_channels_list,
                  std::int64_t out_channels, ops::FeaturePyramidNetworkOptions fpn_options);

  FP_MODULE(body, fpn)
  /// [N, 3, H, W] -> the pyramid's maps ("0", "1", ..., "pool"), finest first.
  ops::FeatureMaps forward(TensorView input) const;

  /// The classifier's stages.
  IntermediateLayerGetter body;
  /// The pyramid.
  ops::FeaturePyramidNetwork fpn;
  /// The channels of every map out.
  std::int64_t out_channels;
};

/// The keyword arguments of resnet_fpn_backbone and mobilenet_backbone.
struct FpnBackboneOptions {
  /// The stages returned: ResNet's layer numbers (1 to 4; all four when
  /// absent), MobileNet's stage indices (its last two when absent).
  std::optional<std::vector<std::int64_t>> returned_layers{};
  /// The pyramid's extra block (torchvision: LastLevelMaxPool when None).
  std::variant<std::monostate, ops::LastLevelMaxPool, ops::LastLevelP6P7> extra_blocks =
      ops::LastLevelMaxPool();
  /// The pyramid's norm (the v2 models: BatchNorm2d).
  ops::NormLayer norm_layer = ops::NormLayer::None;
};

/// torchvision's _resnet_fpn_extractor (what resnet_fpn_backbone returns):
/// `backbone`'s layers 1 to 4 as maps "0" to "3" (returned_layers), and a
/// pyramid of 256 channels. fp::Error (BadArgument) for a layer outside 1..4.
BackboneWithFPN resnet_fpn_backbone(ResNet backbone, const FpnBackboneOptions& options = {});

/// torchvision's _mobilenet_extractor with fpn=True (what mobilenet_backbone
/// returns): `backbone`'s features at its last two stages (returned_layers)
/// as maps "0" and "1", and a pyramid of 256 channels. fp::Error
/// (BadArgument) for a stage index out of range.
BackboneWithFPN mobilenet_backbone(MobileNetV3 backbone, const FpnBackboneOptions& options = {});

}  // namespace fp::vision::models::detection
