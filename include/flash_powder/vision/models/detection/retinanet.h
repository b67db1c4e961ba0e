// torchvision's RetinaNet models (torchvision.models.detection.retinanet),
// with its state-dict keys ("backbone.fpn.extra_blocks.p6.weight",
// "head.classification_head.conv.0.0.weight", "head.regression_head.bbox_reg.bias").
// https://pytorch.org/vision/stable/models/retinanet.html
//
//     auto net = fp::vision::models::detection::retinanet_resnet50_fpn_v2();
//     net.load_state_dict(fp::safetensors::MappedFile::open("retinanet_resnet50_fpn_v2.safetensors"));
//     std::vector<fp::vision::models::detection::Detection> found = net({image1, image2});
//     // found[0].boxes [N, 4], found[0].labels [N] (COCO's 91 categories), found[0].scores [N]
//
// Images are [3, H, W] float in [0, 1], each of its own size; the builders
// make torchvision's model with weights=None and weights_backbone=None
// (BatchNorm2d in the backbone; backbone_norm_layer for its FrozenBatchNorm2d).
// The keywords that act only in training (fg_iou_thresh, bg_iou_thresh,
// trainable_backbone_layers) are not options.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
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
#include "flash_powder/vision/models/detection/transform.h"
#include "flash_powder/vision/ops/conv_norm_activation.h"

namespace fp::vision::models::detection {

/// The keyword arguments of torchvision's RetinaNet and FCOS (and their
/// builders) that act in inference. Those left empty take the model's
/// default: RetinaNet's unless FCOS's is given.
struct RetinaNetOptions {
  /// The classes scored (COCO's 91).
  std::optional<std::int64_t> num_classes{};
  /// The shorter side's size after resizing.
  std::int64_t min_size = 800;
  /// The longer side's limit.
  std::int64_t max_size = 1333;
  /// Per-channel means of the normalisation (ImageNet's).
  std::vector<double> image_mean{0.485, 0.456, 0.406};
  /// Per-channel standard deviations (ImageNet's).
  std::vector<double> image_std{0.229, 0.224, 0.225};
  /// The least score of a detection (RetinaNet 0.05, FCOS 0.2).
  std::optional<double> score_thresh{};
  /// The per-class NMS threshold (RetinaNet 0.5, FCOS 0.6).
  std::optional<double> nms_thresh{};
  /// The most detections per image (RetinaNet 300, FCOS 100).
  std::optional<std::int64_t> detections_per_img{};
  /// The most candidates per map before NMS.
  std::int64_t topk_candidates = 1000;
  /// The backbone's norm: BatchNorm2d (torchvision's builders without
  /// weights) or FrozenBatchNorm2d (with weights). The v2 builder takes
  /// BatchNorm2d only, as torchvision's.
  ops::NormLayer backbone_norm_layer = ops::NormLayer::BatchNorm2d;
  /// The backbone norms' eps (retinanet_resnet50_fpn's COCO checkpoint
  /// runs with 0: its builder's overwrite_eps).
  double backbone_norm_eps = 1e-5;
  /// The transform's size_divisible.
  std::int64_t size_divisible = 32;
  /// The transform's fixed_size (width, height).
  std::optional<std::pair<std::int64_t, std::int64_t>> fixed_size{};
};

/// torchvision's RetinaNetClassificationHead: four 3x3 Conv2dNormActivations
/// ("conv.I.0.weight"), then "cls_logits".
class RetinaNetClassificationHead : public nn::ModuleBase {
 public:
  /// `num_classes` logits for each of `num_anchors` anchors per position,
  /// the convolutions followed by `norm_layer` (None or GroupNorm).
  RetinaNetClassificationHead(std::int64_t in_channels, std::int64_t num_anchors,
                              std::int64_t num_classes,
                              ops::NormLayer norm_layer = ops::NormLayer::None);

  FP_MODULE(conv, cls_logits)
  /// One [N, C, H, W] map per level -> [N, sum of H W A, num_classes] logits.
  Tensor forward(const std::vector<TensorView>& x) const;

  /// The Conv2dNormActivations.
  nn::Sequential conv;
  /// The 3x3 convolution to the logits.
  nn::Conv2d cls_logits;
  /// The classes scored.
  std::int64_t num_classes;
};

/// torchvision's RetinaNetRegressionHead: four 3x3 Conv2dNormActivations,
/// then "bbox_reg".
class RetinaNetRegressionHead : public nn::ModuleBase {
 public:
  /// Four deltas for each of `num_anchors` anchors per position.
  RetinaNetRegressionHead(std::int64_t in_channels, std::int64_t num_anchors,
                          ops::NormLayer norm_layer = ops::NormLayer::None);

  FP_MODULE(conv, bbox_reg)
  /// One [N, C, H, W] map per level -> [N, sum of H W A, 4] deltas.
  Tensor forward(const std::vector<TensorView>& x) const;

  /// The Conv2dNormActivations.
  nn::Sequential conv;
  /// The 3x3 convolution to the deltas.
  nn::Conv2d bbox_reg;
};

/// What RetinaNetHead returns: torchvision's dict of "cls_logits" and "bbox_regression".
struct RetinaNetHeadOutputs {
  /// [N, sum of H W A, num_classes].
  Tensor cls_logits;
  /// [N, sum of H W A, 4].
  Tensor bbox_regression;
};

/// torchvision's RetinaNetHead.
class RetinaNetHead : public nn::ModuleBase {
 public:
  /// Both heads over `in_channels` features (v2: `norm_layer` GroupNorm).
  RetinaNetHead(std::int64_t in_channels, std::int64_t num_anchors, std::int64_t num_classes,
                ops::NormLayer norm_layer = ops::NormLayer::None);

  FP_MODULE(classification_head, regression_head)
  /// Both heads' outputs over the maps `x`.
  RetinaNetHeadOutputs forward(const std::vector<TensorView>& x) const;

  /// The class logits.
  RetinaNetClassificationHead classification_head;
  /// The box deltas.
  RetinaNetRegressionHead regression_head;
};

/// The parts a RetinaNet may be given instead of its defaults.
struct RetinaNetParts {
  /// The anchors (torchvision's _default_anchorgen: sizes 32 .. 512 with
  /// three scales per octave, three aspect ratios).
  std::optional<AnchorGenerator> anchor_generator{};
  /// The head (RetinaNetHead(out_channels, anchors per location, num_classes)).
  std::optional<RetinaNetHead> head{};
};

/// torchvision.models.detection.RetinaNet in eval mode.
class RetinaNet : public DetectionModel {
 public:
  /// RetinaNet over `backbone`, with `options` and `parts`. fp::Error
  /// (BadArgument) for options out of range.
  explicit RetinaNet(BackboneWithFPN backbone, const RetinaNetOptions& options = {},
                     RetinaNetParts parts = {});

  FP_MODULE(backbone, anchor_generator, head, transform)
  std::vector<Detection> forward(const std::vector<TensorView>& images) const override;

  /// torchvision's postprocess_detections: per image and map, the best
  /// topk_candidates scores above score_thresh, their boxes decoded from
  /// `anchors` (one [sum of H W A, 4] tensor per image) and clipped to
  /// `image_shapes`, then batched NMS and the best detections_per_img.
  std::vector<Detection> postprocess_detections(
      const RetinaNetHeadOutputs& head_outputs, const std::vector<Tensor>& anchors,
      const std::vector<std::int64_t>& num_anchors_per_level,
      const std::vector<ImageSize>& image_shapes) const;

  /// The feature pyramid.
  BackboneWithFPN backbone;
  /// The anchors.
  AnchorGenerator anchor_generator;
  /// The classification and regression heads.
  RetinaNetHead head;
  /// Normalises, resizes and batches the images.
  GeneralizedRCNNTransform transform;
  /// The deltas' decoding (weights 1, 1, 1, 1).
  BoxCoder box_coder;
  /// The least score of a detection.
  double score_thresh;
  /// The per-class NMS threshold.
  double nms_thresh;
  /// The most detections per image.
  std::int64_t detections_per_img;
  /// The most candidates per map before NMS.
  std::int64_t topk_candidates;
};

/// https://pytorch.org/vision/stable/models/generated/torchvision.models.detection.retinanet_resnet50_fpn.html
RetinaNet retinanet_resnet50_fpn(const RetinaNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.detection.retinanet_resnet50_fpn_v2.html
RetinaNet retinanet_resnet50_fpn_v2(const RetinaNetOptions& options = {});

}  // namespace fp::vision::models::detection
