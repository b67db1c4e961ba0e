// torchvision's Keypoint R-CNN (torchvision.models.detection.keypoint_rcnn):
// Faster R-CNN plus keypoints per detection, with its state-dict keys
// ("roi_heads.keypoint_head.0.weight", "roi_heads.keypoint_predictor.kps_score_lowres.weight").
// https://pytorch.org/vision/stable/models/keypoint_rcnn.html
//
//     auto net = fp::vision::models::detection::keypointrcnn_resnet50_fpn();
//     std::vector<fp::vision::models::detection::Detection> found = net(images);
//     // found[0].keypoints: [N, 17, 3] (x, y, 1) in the first image's pixels
#pragma once

#include <cstdint>
#include <vector>

#include "flash_powder/nn/define.h"
#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/module.h"
#include "flash_powder/vision/models/detection/faster_rcnn.h"

namespace fp::vision::models::detection {

/// torchvision.models.detection.keypoint_rcnn.KeypointRCNNHeads: 3x3
/// convolutions with ReLU (keys "0.weight", "2.weight", ...).
class KeypointRCNNHeads : public nn::Sequential {
 public:
  /// From `in_channels` through one convolution per entry of `layers`.
  KeypointRCNNHeads(std::int64_t in_channels, const std::vector<std::int64_t>& layers);
};

/// torchvision.models.detection.keypoint_rcnn.KeypointRCNNPredictor: a 4x4
/// transposed convolution (stride 2) to one heatmap per keypoint, then
/// bilinear upsampling by 2.
class KeypointRCNNPredictor : public nn::Module {
 public:
  /// From `in_channels` features to `num_keypoints` heatmaps.
  KeypointRCNNPredictor(std::int64_t in_channels, std::int64_t num_keypoints);
  FP_MODULE(kps_score_lowres)
  /// [R, in_channels, h, w] -> [R, num_keypoints, 4 h, 4 w] heatmaps.
  Tensor forward(TensorView input) const override;
  /// The transposed convolution.
  nn::ConvTranspose2d kps_score_lowres;
};

/// torchvision.models.detection.KeypointRCNN: a FasterRCNN whose RoI heads
/// also locate keypoints (pooled at 14 x 14 from the maps "0" to "3").
class KeypointRCNN : public FasterRCNN {
 public:
  /// Keypoint R-CNN over `backbone` with `options` (FasterRCNN's, and
  /// num_keypoints: 17 when absent) and the default keypoint parts:
  /// KeypointRCNNHeads(out_channels, 8 x 512) and KeypointRCNNPredictor(512, num_keypoints).
  explicit KeypointRCNN(BackboneWithFPN backbone, const FasterRCNNOptions& options = {});
};

/// https://pytorch.org/vision/stable/models/generated/torchvision.models.detection.keypointrcnn_resnet50_fpn.html
/// (num_classes 2 and num_keypoints 17 when absent).
KeypointRCNN keypointrcnn_resnet50_fpn(const FasterRCNNOptions& options = {});

}  // namespace fp::vision::models::detection
