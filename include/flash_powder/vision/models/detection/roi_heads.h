// torchvision.models.detection.roi_heads.RoIHeads (its box branch, in
// inference) and the box heads of torchvision's faster_rcnn.py (TwoMLPHead,
// FastRCNNConvFCHead, FastRCNNPredictor), with their keys ("box_head.fc6.weight",
// "box_predictor.cls_score.bias", "box_head.0.0.weight" for the v2 head).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "flash_powder/core/tensor.h"
#include "flash_powder/nn/define.h"
#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/layers/linear.h"
#include "flash_powder/nn/module.h"
#include "flash_powder/vision/models/detection/box_coder.h"
#include "flash_powder/vision/models/detection/image_list.h"
#include "flash_powder/vision/ops/conv_norm_activation.h"
#include "flash_powder/vision/ops/feature_pyramid_network.h"
#include "flash_powder/vision/ops/poolers.h"

namespace fp::vision::models::detection {

/// What a detection model finds in one image (torchvision's dict of
/// "boxes", "labels" and "scores"), best first.
struct Detection {
  /// [N, 4] float (x1, y1, x2, y2), in the pixels of the image given.
  Tensor boxes;
  /// [N] int64 class indices (0 is the background, never returned).
  Tensor labels;
  /// [N] float probabilities.
  Tensor scores;
  /// Mask R-CNN's [N, 1, H, W] float mask probabilities, in the pixels of
  /// the image given (undefined for the models without masks).
  Tensor masks;
  /// Keypoint R-CNN's [N, K, 3] float keypoints (x, y, visibility 1), in the
  /// pixels of the image given (undefined for the other models).
  Tensor keypoints;
  /// Keypoint R-CNN's [N, K] float heatmap scores of the keypoints.
  Tensor keypoints_scores;
};

/// torchvision.models.detection.faster_rcnn.TwoMLPHead: flatten, fc6, ReLU, fc7, ReLU.
class TwoMLPHead : public nn::Module {
 public:
  /// From `in_channels` (the pooled features, flattened) to `representation_size`.
  TwoMLPHead(std::int64_t in_channels, std::int64_t representation_size);
  FP_MODULE(fc6, fc7)
  /// [R, C, h, w] pooled features -> [R, representation_size].
  Tensor forward(TensorView input) const override;
  /// The first layer.
  nn::Linear fc6;
  /// The second.
  nn::Linear fc7;
};

/// torchvision.models.detection.faster_rcnn.FastRCNNConvFCHead (the v2
/// models'): Conv2dNormActivations, Flatten, then Linear + ReLU layers.
class FastRCNNConvFCHead : public nn::Sequential {
 public:
  /// Over pooled features of (channels, height, width) `input_size`.
  FastRCNNConvFCHead(std::array<std::int64_t, 3> input_size,
                     const std::vector<std::int64_t>& conv_layers,
                     const std::vector<std::int64_t>& fc_layers,
                     ops::NormLayer norm_layer = ops::NormLayer::None);
};

/// torchvision.models.detection.faster_rcnn.FastRCNNPredictor: class scores
/// and per-class box deltas.
class FastRCNNPredictor : public nn::ModuleBase {
 public:
  /// From `in_channels` features to `num_classes` classes (background included).
  FastRCNNPredictor(std::int64_t in_channels, std::int64_t num_classes);
  FP_MODULE(cls_score, bbox_pred)
  /// [R, in_channels] (or [R, in_channels, 1, 1]) -> ([R, num_classes]
  /// logits, [R, 4 num_classes] deltas).
  std::pair<Tensor, Tensor> forward(TensorView x) const;
  /// The classifier.
  nn::Linear cls_score;
  /// The box regressor.
  nn::Linear bbox_pred;
};

/// RoIHeads' inference settings: torchvision's box_score_thresh,
/// box_nms_thresh, box_detections_per_img and bbox_reg_weights.
struct RoIHeadsOptions {
  /// The least class probability kept.
  double score_thresh = 0.05;
  /// NMS's IoU threshold, per class.
  double nms_thresh = 0.5;
  /// The most detections per image.
  std::int64_t detections_per_img = 100;
  /// The box coder's weights.
  std::array<double, 4> bbox_reg_weights{10.0, 10.0, 5.0, 5.0};
};

/// torchvision's RoIHeads in eval mode: the box branch, the mask branch when
/// its three parts are set (Mask R-CNN), the keypoint branch when its three
/// parts are set (Keypoint R-CNN).
class RoIHeads : public nn::ModuleBase {
 public:
  /// The heads over the proposals' features pooled by `box_roi_pool`.
  /// fp::Error (BadArgument) for a null box_head or a threshold outside [0, 1].
  RoIHeads(ops::MultiScaleRoIAlign box_roi_pool, std::unique_ptr<nn::Module> box_head,
           FastRCNNPredictor box_predictor, const RoIHeadsOptions& options = {});

  FP_MODULE(box_roi_pool, box_head, box_predictor, mask_roi_pool, mask_head, mask_predictor,
            keypoint_roi_pool, keypoint_head, keypoint_predictor)
  /// The detections of each image from its `proposals` ([P, 4] each) on
  /// `features`; `image_shapes` holds each image's size in the batch.
  std::vector<Detection> forward(const ops::FeatureMaps& features,
                                 const std::vector<Tensor>& proposals,
                                 const std::vector<ImageSize>& image_shapes) const;
  /// torchvision's postprocess_detections: softmax, per-class boxes clipped,
  /// scores above score_thresh, boxes of a side >= 0.01, NMS per class, the
  /// best detections_per_img.
  std::vector<Detection> postprocess_detections(TensorView class_logits, TensorView box_regression,
                                                const std::vector<Tensor>& proposals,
                                                const std::vector<ImageSize>& image_shapes) const;

  /// Pools each proposal's features.
  ops::MultiScaleRoIAlign box_roi_pool;
  /// TwoMLPHead or FastRCNNConvFCHead.
  std::unique_ptr<nn::Module> box_head;
  /// Scores and deltas.
  FastRCNNPredictor box_predictor;
  /// Decodes the deltas.
  BoxCoder box_coder;
  /// The inference settings.
  RoIHeadsOptions options;
  /// Pools each detection's features for its mask (Mask R-CNN; absent otherwise).
  std::optional<ops::MultiScaleRoIAlign> mask_roi_pool{};
  /// MaskRCNNHeads (null without masks).
  std::unique_ptr<nn::Module> mask_head{};
  /// MaskRCNNPredictor: [R, num_classes, 28, 28] mask logits (null without masks).
  std::unique_ptr<nn::Module> mask_predictor{};
  /// Pools each detection's features for its keypoints (Keypoint R-CNN; absent otherwise).
  std::optional<ops::MultiScaleRoIAlign> keypoint_roi_pool{};
  /// KeypointRCNNHeads (null without keypoints).
  std::unique_ptr<nn::Module> keypoint_head{};
  /// KeypointRCNNPredictor: [R, K, 56, 56] heatmaps (null without keypoints).
  std::unique_ptr<nn::Module> keypoint_predictor{};

 private:
  /// The keypoint branch: each detection's keypoints and their scores.
  void add_keypoints(const ops::FeatureMaps& features, std::vector<Detection>& result,
                     const std::vector<ImageSize>& image_shapes) const;
  /// The mask branch: each detection's [1, 28, 28] mask probabilities of its label.
  void add_masks(const ops::FeatureMaps& features, std::vector<Detection>& result,
                 const std::vector<ImageSize>& image_shapes) const;
};

/// torchvision's heatmaps_to_keypoints: for each RoI of `rois` ([R, 4]) the
/// [K, 3] keypoints (x, y, 1) at the maxima of its heatmaps `maps` ([R, K, H,
/// W]) resized bicubically to the RoI, and their [K] scores there: ([R, K,
/// 3], [R, K]). fp::Error (BadArgument) for shapes that do not match.
std::pair<Tensor, Tensor> heatmaps_to_keypoints(TensorView maps, TensorView rois);

/// torchvision's paste_masks_in_image: each [1, M, M] mask of `masks` ([N,
/// 1, M, M]) padded by `padding`, resized bilinearly to its box of `boxes`
/// ([N, 4], widened by the padding, in whole pixels) and placed there in a
/// zero image of `image_size` (height, width): [N, 1, height, width]. A new
/// Tensor; fp::Error (BadArgument) for shapes that do not match.
Tensor paste_masks_in_image(TensorView masks, TensorView boxes, ImageSize image_size,
                            std::int64_t padding = 1);

}  // namespace fp::vision::models::detection
