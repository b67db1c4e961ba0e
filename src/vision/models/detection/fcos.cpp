// torchvision/models/detection/fcos.py in eval mode: FCOS, its heads and
// builder (weights=None, weights_backbone=None), op for op.
#include "flash_powder/vision/models/detection/fcos.h"

#include <string>
#include <utility>

#include "flash_powder/aten/aten.h"
#include "flash_powder/base/error.h"
#include "flash_powder/core/functions.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/nn/layers/normalization.h"
#include "vision/models/detection/dense_detection.h"

namespace fp::vision::models::detection {
namespace {

/// torchvision's FCOS default anchors: one per position, of the maps'
/// strides 8 .. 128, aspect ratio 1.
AnchorGenerator fcos_anchor_generator() {
  std::vector<std::vector<std::int64_t>> sizes{{8}, {16}, {32}, {64}, {128}};
  return {sizes, std::vector<std::vector<double>>(sizes.size(), {1.0})};
}

/// `num_convs` times (3x3 Conv2d, GroupNorm(32), ReLU): both heads' "conv".
nn::Sequential fcos_head_convs(std::int64_t channels, std::int64_t num_convs) {
  constexpr std::int64_t kGroups = 32;
  nn::Sequential conv;
  for (std::int64_t i = 0; i < num_convs; ++i) {
    conv.push(nn::Conv2d(channels, channels, 3, {.padding = 1}));
    conv.push(nn::GroupNorm(kGroups, channels));
    conv.push(nn::ReLU());
  }
  return conv;
}

/// Each of `outputs` (one [N, A C, H, W] map per level) as [N, H W A, C], concatenated.
Tensor fcos_flattened(const std::vector<Tensor>& outputs, std::int64_t channels) {
  std::vector<Tensor> per_level;
  per_level.reserve(outputs.size());
  for (const Tensor& output : outputs)
    per_level.push_back(detail::permute_and_flatten(output, channels));
  return fp::cat(per_level, 1);
}

}  // namespace

FCOSClassificationHead::FCOSClassificationHead(std::int64_t in_channels, std::int64_t num_anchors,
                                               std::int64_t num_classes, std::int64_t num_convs)
    : conv(fcos_head_convs(in_channels, num_convs)),
      cls_logits(in_channels, num_anchors * num_classes, 3, {.padding = 1}),
      num_classes(num_classes) {}

Tensor FCOSClassificationHead::forward(const std::vector<TensorView>& x) const {
  std::vector<Tensor> logits;
  logits.reserve(x.size());
  for (const TensorView& features : x)
    logits.push_back(cls_logits(conv(features)));
  return fcos_flattened(logits, num_classes);
}

FCOSRegressionHead::FCOSRegressionHead(std::int64_t in_channels, std::int64_t num_anchors,
                                       std::int64_t num_convs)
    : conv(fcos_head_convs(in_channels, num_convs)),
      bbox_reg(in_channels, num_anchors * 4, 3, {.padding = 1}),
      bbox_ctrness(in_channels, num_anchors, 3, {.padding = 1}) {}

FCOSRegression FCOSRegressionHead::forward(const std::vector<TensorView>& x) const {
  std::vector<Tensor> regression;
  std::vector<Tensor> ctrness;
  for (const TensorView& features : x) {
    const Tensor bbox_feature = conv(features);
    regression.push_back(aten::relu(bbox_reg(bbox_feature)));
    ctrness.push_back(bbox_ctrness(bbox_feature));
  }
  return {.bbox_regression = fcos_flattened(regression, 4),
          .bbox_ctrness = fcos_flattened(ctrness, 1)};
}

FCOSHead::FCOSHead(std::int64_t in_channels, std::int64_t num_anchors, std::int64_t num_classes,
                   std::int64_t num_convs)
    : classification_head(in_channels, num_anchors, num_classes, num_convs),
      regression_head(in_channels, num_anchors, num_convs) {}

FCOSHeadOutputs FCOSHead::forward(const std::vector<TensorView>& x) const {
  FCOSRegression regression = regression_head(x);
  return {.cls_logits = classification_head(x),
          .bbox_regression = std::move(regression.bbox_regression),
          .bbox_ctrness = std::move(regression.bbox_ctrness)};
}

namespace {

AnchorGenerator one_anchor_per_position(AnchorGenerator anchors) {
  const std::int64_t per_position = anchors.num_anchors_per_location()[0];
  if (per_position != 1)
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::detection::FCOS: anchor_generator.num_anchors_per_location()"
                "[0] should be 1 instead of " +
                    std::to_string(per_position));
  return anchors;
}

FCOSHead default_fcos_head(const BackboneWithFPN& backbone, const FCOSOptions& options) {
  return {backbone.out_channels, 1, detail::num_classes_of(options, "FCOS")};
}

}  // namespace

FCOS::FCOS(BackboneWithFPN backbone, const FCOSOptions& options, FCOSParts parts)
    : backbone(std::move(backbone)),
      anchor_generator(one_anchor_per_position(
          parts.anchor_generator ? std::move(*parts.anchor_generator) : fcos_anchor_generator())),
      head(parts.head ? std::move(*parts.head) : default_fcos_head(this->backbone, options)),
      transform(detail::dense_transform(options)),
      score_thresh(options.score_thresh.value_or(0.2)),
      nms_thresh(options.nms_thresh.value_or(0.6)),
      detections_per_img(options.detections_per_img.value_or(100)),
      topk_candidates(options.topk_candidates) {
  detail::check_dense_options("FCOS", score_thresh, nms_thresh, detections_per_img,
                              topk_candidates);
}

std::vector<Detection> FCOS::forward(const std::vector<TensorView>& images) const {
  return detail::dense_forward(*this, images);
}

std::vector<Detection> FCOS::postprocess_detections(
    const FCOSHeadOutputs& head_outputs, const std::vector<Tensor>& anchors,
    const std::vector<std::int64_t>& num_anchors_per_level,
    const std::vector<ImageSize>& image_shapes) const {
  const std::vector<TensorView> box_ctrness =
      head_outputs.bbox_ctrness.split(num_anchors_per_level, 1);
  return detail::postprocess_dense(
      {head_outputs.cls_logits, head_outputs.bbox_regression, anchors, num_anchors_per_level},
      image_shapes, detail::selection_of(*this),
      [&](TensorView logits, std::int64_t image, std::size_t level) {
        return aten::sqrt(logits.sigmoid() * box_ctrness[level].i(image).sigmoid()).flatten();
      },
      [this](TensorView rel_codes, TensorView boxes) {
        return box_coder.decode(rel_codes, boxes);
      });
}

FCOS fcos_resnet50_fpn(const FCOSOptions& options) {
  constexpr std::int64_t kP5Channels = 256;  // P6 from P5, as retinanet_resnet50_fpn
  return FCOS(detail::resnet50_p3_to_p7_backbone(options.backbone_norm_layer,
                                                 options.backbone_norm_eps, kP5Channels),
              options);
}

}  // namespace fp::vision::models::detection
