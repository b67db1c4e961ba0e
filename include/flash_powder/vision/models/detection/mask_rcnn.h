// torchvision's Mask R-CNN (torchvision.models.detection.mask_rcnn): Faster
// R-CNN plus a mask per detection, with its state-dict keys
// ("roi_heads.mask_head.0.0.weight", "roi_heads.mask_predictor.conv5_mask.weight").
// https://pytorch.org/vision/stable/models/mask_rcnn.html
//
//     auto net = fp::vision::models::detection::maskrcnn_resnet50_fpn();
//     std::vector<fp::vision::models::detection::Detection> found = net(images);
//     // found[0].masks: [N, 1, H, W] probabilities in the first image's pixels
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/vision/models/detection/faster_rcnn.h"
#include "flash_powder/vision/ops/conv_norm_activation.h"

namespace fp::vision::models::detection {

/// torchvision.models.detection.mask_rcnn.MaskRCNNHeads: 3x3
/// Conv2dNormActivations (keys "0.0.weight", ...).
class MaskRCNNHeads : public nn::Sequential {
 public:
  /// From `in_channels` through one block per entry of `layers`, each with
  /// `dilation` (and as much padding) and `norm_layer`.
  MaskRCNNHeads(std::int64_t in_channels, const std::vector<std::int64_t>& layers,
                std::int64_t dilation, ops::NormLayer norm_layer = ops::NormLayer::None);
};

/// torchvision.models.detection.mask_rcnn.MaskRCNNPredictor: "conv5_mask"
/// (2x2 transposed convolution, stride 2), "relu", "mask_fcn_logits" (1x1
/// convolution to one map per class).
class MaskRCNNPredictor : public nn::Sequential {
 public:
  /// From `in_channels` through `dim_reduced` to `num_classes` maps.
  MaskRCNNPredictor(std::int64_t in_channels, std::int64_t dim_reduced, std::int64_t num_classes);
};

/// torchvision.models.detection.MaskRCNN: a FasterRCNN whose RoI heads also
/// predict masks (pooled at 14 x 14 from the maps "0" to "3").
class MaskRCNN : public FasterRCNN {
 public:
  /// Mask R-CNN over `backbone` with `options` (torchvision's MaskRCNN
  /// keywords that act in inference are FasterRCNN's) and the default mask
  /// parts: MaskRCNNHeads(out_channels, {256, 256, 256, 256}, 1) and
  /// MaskRCNNPredictor(256, 256, num_classes).
  explicit MaskRCNN(BackboneWithFPN backbone, const FasterRCNNOptions& options = {});
  /// The same with `parts` instead of Faster R-CNN's defaults and
  /// `mask_head` (MaskRCNNHeads' default when null).
  MaskRCNN(BackboneWithFPN backbone, const FasterRCNNOptions& options, FasterRCNNParts parts,
           std::unique_ptr<nn::Module> mask_head);
};

/// https://pytorch.org/vision/stable/models/generated/torchvision.models.detection.maskrcnn_resnet50_fpn.html
MaskRCNN maskrcnn_resnet50_fpn(const FasterRCNNOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.detection.maskrcnn_resnet50_fpn_v2.html
/// (BatchNorm2d in the FPN, the RPN's two convolutions, the box and mask
/// heads; the backbone norm is BatchNorm2d only, as torchvision's).
MaskRCNN maskrcnn_resnet50_fpn_v2(const FasterRCNNOptions& options = {});

}  // namespace fp::vision::models::detection
