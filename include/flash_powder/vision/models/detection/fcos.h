// torchvision's FCOS model (torchvision.models.detection.fcos), with its
// state-dict keys ("head.classification_head.conv.1.weight" (GroupNorm),
// "head.regression_head.bbox_ctrness.bias").
// https://pytorch.org/vision/stable/models/fcos.html
//
//     auto net = fp::vision::models::detection::fcos_resnet50_fpn();
//     net.load_state_dict(fp::safetensors::MappedFile::open("fcos_resnet50_fpn.safetensors"));
//     std::vector<fp::vision::models::detection::Detection> found = net({image1, image2});
//
// Images are [3, H, W] float in [0, 1], each of its own size; the builder
// makes torchvision's model with weights=None and weights_backbone=None.
// The keywords that act only in training (center_sampling_radius,
// trainable_backbone_layers) are not options.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "flash_powder/core/tensor.h"
#include "flash_powder/nn/define.h"
#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/module.h"
#include "flash_powder/vision/models/detection/anchor_utils.h"
#include "flash_powder/vision/models/detection/backbone_utils.h"
#include "flash_powder/vision/models/detection/box_coder.h"
#include "flash_powder/vision/models/detection/detection_model.h"
#include "flash_powder/vision/models/detection/retinanet.h"
#include "flash_powder/vision/models/detection/transform.h"

namespace fp::vision::models::detection {

/// FCOS's keyword arguments are RetinaNet's; those left empty take FCOS's
/// defaults (score_thresh 0.2, nms_thresh 0.6, detections_per_img 100).
using FCOSOptions = RetinaNetOptions;

/// torchvision's FCOSClassificationHead: `num_convs` times (3x3 Conv2d,
/// GroupNorm(32), ReLU) in "conv" (keys "conv.0.weight", "conv.1.weight",
/// "conv.3.weight", ...), then "cls_logits".
class FCOSClassificationHead : public nn::ModuleBase {
 public:
  /// `num_classes` logits for each of `num_anchors` anchors per position.
  FCOSClassificationHead(std::int64_t in_channels, std::int64_t num_anchors,
                         std::int64_t num_classes, std::int64_t num_convs = 4);

  FP_MODULE(conv, cls_logits)
  /// One [N, C, H, W] map per level -> [N, sum of H W A, num_classes] logits.
  Tensor forward(const std::vector<TensorView>& x) const;

  /// The convolutions, norms and activations.
  nn::Sequential conv;
  /// The 3x3 convolution to the logits.
  nn::Conv2d cls_logits;
  /// The classes scored.
  std::int64_t num_classes;
};

/// What FCOSRegressionHead returns.
struct FCOSRegression {
  /// [N, sum of H W A, 4]: relu'd distances to the box's sides.
  Tensor bbox_regression;
  /// [N, sum of H W A, 1]: centre-ness logits.
  Tensor bbox_ctrness;
};

/// torchvision's FCOSRegressionHead: the same convolutions as the
/// classification head's, then "bbox_reg" (relu'd) and "bbox_ctrness".
class FCOSRegressionHead : public nn::ModuleBase {
 public:
  /// Four distances and a centre-ness logit for each of `num_anchors` anchors per position.
  FCOSRegressionHead(std::int64_t in_channels, std::int64_t num_anchors,
                     std::int64_t num_convs = 4);

  FP_MODULE(conv, bbox_reg, bbox_ctrness)
  /// Both outputs over the maps `x`.
  FCOSRegression forward(const std::vector<TensorView>& x) const;

  /// The convolutions, norms and activations.
  nn::Sequential conv;
  /// The 3x3 convolution to the distances.
  nn::Conv2d bbox_reg;
  /// The 3x3 convolution to the centre-ness logits.
  nn::Conv2d bbox_ctrness;
};

/// What FCOSHead returns: torchvision's dict of "cls_logits",
/// "bbox_regression" and "bbox_ctrness".
struct FCOSHeadOutputs {
  /// [N, sum of H W A, num_classes].
  Tensor cls_logits;
  /// [N, sum of H W A, 4].
  Tensor bbox_regression;
  /// [N, sum of H W A, 1].
  Tensor bbox_ctrness;
};

/// torchvision's FCOSHead.
class FCOSHead : public nn::ModuleBase {
 public:
  /// Both heads over `in_channels` features.
  FCOSHead(std::int64_t in_channels, std::int64_t num_anchors, std::int64_t num_classes,
           std::int64_t num_convs = 4);

  FP_MODULE(classification_head, regression_head)
  /// Both heads' outputs over the maps `x`.
  FCOSHeadOutputs forward(const std::vector<TensorView>& x) const;

  /// The class logits.
  FCOSClassificationHead classification_head;
  /// The distances and centre-ness.
  FCOSRegressionHead regression_head;
};

/// The parts an FCOS may be given instead of its defaults.
struct FCOSParts {
  /// The anchors: one per position (torchvision's default: sizes 8 .. 128,
  /// the maps' strides, aspect ratio 1). fp::Error (BadArgument) for more.
  std::optional<AnchorGenerator> anchor_generator{};
  /// The head (FCOSHead(out_channels, 1, num_classes)).
  std::optional<FCOSHead> head{};
};

/// torchvision.models.detection.FCOS in eval mode.
class FCOS : public DetectionModel {
 public:
  /// FCOS over `backbone`, with `options` and `parts`. fp::Error
  /// (BadArgument) for options out of range.
  explicit FCOS(BackboneWithFPN backbone, const FCOSOptions& options = {}, FCOSParts parts = {});

  FP_MODULE(backbone, anchor_generator, head, transform)
  std::vector<Detection> forward(const std::vector<TensorView>& images) const override;

  /// torchvision's postprocess_detections: per image and map, the best
  /// topk_candidates of sqrt(sigmoid(class logit) sigmoid(centre-ness))
  /// above score_thresh, their boxes decoded from `anchors` (one [sum of
  /// H W, 4] tensor per image) and clipped to `image_shapes`, then batched
  /// NMS and the best detections_per_img.
  std::vector<Detection> postprocess_detections(
      const FCOSHeadOutputs& head_outputs, const std::vector<Tensor>& anchors,
      const std::vector<std::int64_t>& num_anchors_per_level,
      const std::vector<ImageSize>& image_shapes) const;

  /// The feature pyramid.
  BackboneWithFPN backbone;
  /// The anchors, one per position.
  AnchorGenerator anchor_generator;
  /// The classification, regression and centre-ness heads.
  FCOSHead head;
  /// Normalises, resizes and batches the images.
  GeneralizedRCNNTransform transform;
  /// The distances' decoding (normalize_by_size).
  BoxLinearCoder box_coder;
  /// The least score of a detection.
  double score_thresh;
  /// The per-class NMS threshold.
  double nms_thresh;
  /// The most detections per image.
  std::int64_t detections_per_img;
  /// The most candidates per map before NMS.
  std::int64_t topk_candidates;
};

/// https://pytorch.org/vision/stable/models/generated/torchvision.models.detection.fcos_resnet50_fpn.html
FCOS fcos_resnet50_fpn(const FCOSOptions& options = {});

}  // namespace fp::vision::models::detection
