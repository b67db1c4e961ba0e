// torchvision's SSDlite (torchvision.models.detection.ssdlite): SSD with
// depthwise-separable heads and extra blocks over MobileNetV3-Large, with
// its state-dict keys ("backbone.features.0.0.0.weight",
// "backbone.extra.0.1.0.weight", "head.regression_head.module_list.0.1.bias").
// https://pytorch.org/vision/stable/models/ssdlite.html
//
//     auto net = fp::vision::models::detection::ssdlite320_mobilenet_v3_large();
//     std::vector<fp::vision::models::detection::Detection> found = net({image1, image2});
//
// Images are [3, H, W] float in [0, 1], each of its own size (resized to
// 320 x 320 inside).
#pragma once

#include <cstdint>
#include <vector>

#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/vision/models/detection/ssd.h"
#include "flash_powder/vision/ops/conv_norm_activation.h"

namespace fp::vision::models::detection {

/// SSDlite's norm layer, torchvision's `norm_layer` callable: the layer
/// (BatchNorm2d or FrozenBatchNorm2d) and its eps. The default is the
/// builder's partial(nn.BatchNorm2d, eps=0.001, momentum=0.03).
struct SSDLiteNorm {
  /// The layer after each convolution of the blocks.
  ops::NormLayer layer = ops::NormLayer::BatchNorm2d;
  /// Its eps.
  double eps = 0.001;
};

/// torchvision's SSDLiteClassificationHead: a _prediction_block per map
/// (depthwise 3x3 Conv2dNormActivation with ReLU6, then a 1x1 convolution)
/// to num_classes logits per box.
class SSDLiteClassificationHead : public SSDScoringHead {
 public:
  /// For maps of `in_channels` with `num_anchors` boxes per position, the
  /// blocks' norm `norm`.
  SSDLiteClassificationHead(const std::vector<std::int64_t>& in_channels,
                            const std::vector<std::int64_t>& num_anchors, std::int64_t num_classes,
                            const SSDLiteNorm& norm = {});
};

/// torchvision's SSDLiteRegressionHead: a _prediction_block per map to 4
/// box deltas per box.
class SSDLiteRegressionHead : public SSDScoringHead {
 public:
  /// For maps of `in_channels` with `num_anchors` boxes per position.
  SSDLiteRegressionHead(const std::vector<std::int64_t>& in_channels,
                        const std::vector<std::int64_t>& num_anchors, const SSDLiteNorm& norm = {});
};

/// torchvision's SSDLiteHead: an SSDHead of the two SSDlite heads.
SSDHead ssdlite_head(const std::vector<std::int64_t>& in_channels,
                     const std::vector<std::int64_t>& num_anchors, std::int64_t num_classes,
                     const SSDLiteNorm& norm = {});

/// torchvision.models.detection.ssdlite.SSDLiteFeatureExtractorMobileNet:
/// MobileNet's features cut after C4's expansion (the first map) and at the
/// end (the second), then four extra blocks (_extra_block), each a map.
class SSDLiteFeatureExtractorMobileNet : public SSDBackbone {
 public:
  /// Over `backbone` (a MobileNetV3's `features`), cut at block `c4_pos`
  /// (a strided block with an expansion); the extra blocks' widths are
  /// max(min_depth, width x width_mult) of 512, 256, 256, 128, their norm
  /// `norm`. fp::Error (BadArgument) for a block at c4_pos without an
  /// expansion or with a residual connection.
  SSDLiteFeatureExtractorMobileNet(nn::Sequential backbone, std::int64_t c4_pos,
                                   const SSDLiteNorm& norm = {}, double width_mult = 1.0,
                                   std::int64_t min_depth = 16);

  FP_MODULE(features, extra)
  std::vector<Tensor> forward(TensorView images) const override;

  /// The two parts of MobileNet, each giving a map.
  nn::ModuleList features;
  /// The extra blocks, each giving a map.
  nn::ModuleList extra;
};

/// https://pytorch.org/vision/stable/models/generated/torchvision.models.detection.ssdlite320_mobilenet_v3_large.html
SSD ssdlite320_mobilenet_v3_large(const SSDOptions& options = {});

}  // namespace fp::vision::models::detection
