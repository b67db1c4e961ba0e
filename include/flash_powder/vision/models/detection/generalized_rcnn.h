// torchvision.models.detection.generalized_rcnn.GeneralizedRCNN, in
// inference: transform, backbone, region proposals, RoI heads, and the
// detections mapped back to each image's own size. Keys "backbone.*",
// "rpn.*", "roi_heads.*" (the transform has none).
#pragma once

#include <vector>

#include "flash_powder/core/tensor.h"
#include "flash_powder/nn/define.h"
#include "flash_powder/nn/module.h"
#include "flash_powder/vision/models/detection/backbone_utils.h"
#include "flash_powder/vision/models/detection/detection_model.h"
#include "flash_powder/vision/models/detection/roi_heads.h"
#include "flash_powder/vision/models/detection/rpn.h"
#include "flash_powder/vision/models/detection/transform.h"

namespace fp::vision::models::detection {

/// torchvision's GeneralizedRCNN in eval mode.
class GeneralizedRCNN : public DetectionModel {
 public:
  /// The model of these parts.
  GeneralizedRCNN(BackboneWithFPN backbone, RegionProposalNetwork rpn, RoIHeads roi_heads,
                  GeneralizedRCNNTransform transform);

  FP_MODULE(transform, backbone, rpn, roi_heads)
  /// The detections of each image of `images` ([3, H, W] float in [0, 1],
  /// of any sizes), in its own pixels. fp::Error (BadArgument) for no
  /// images or an image that is not [3, H, W] floating point.
  std::vector<Detection> forward(const std::vector<TensorView>& images) const override;

  /// Normalises, resizes and batches the images.
  GeneralizedRCNNTransform transform;
  /// The feature pyramid.
  BackboneWithFPN backbone;
  /// The proposals.
  RegionProposalNetwork rpn;
  /// The detections from the proposals.
  RoIHeads roi_heads;
};

}  // namespace fp::vision::models::detection
