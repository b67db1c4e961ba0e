// torchvision/models/detection/retinanet.py in eval mode: RetinaNet, its
// heads and builders (weights=None, weights_backbone=None), op for op.
#include "flash_powder/vision/models/detection/retinanet.h"

#include <cmath>
#include <string>
#include <utility>

#include "flash_powder/aten/aten.h"
#include "flash_powder/base/error.h"
#include "flash_powder/core/functions.h"
#include "vision/models/detection/dense_detection.h"

namespace fp::vision::models::detection {
namespace {

[[noreturn]] void refuse_retinanet(const std::string& where, const std::string& message) {
  throw Error(ErrorCode::BadArgument, "fp::vision::models::detection::" + where + ": " + message);
}

/// torchvision's _default_anchorgen: for x in 32 .. 512, the sizes
/// (x, int(x 2^(1/3)), int(x 2^(2/3))), three aspect ratios each.
AnchorGenerator retinanet_anchor_generator() {
  std::vector<std::vector<std::int64_t>> sizes;
  for (const std::int64_t x : {32, 64, 128, 256, 512}) {
    const auto scaled = [x](double octave) {
      return static_cast<std::int64_t>(static_cast<double>(x) * std::pow(2.0, octave));
    };
    sizes.push_back({x, scaled(1.0 / 3.0), scaled(2.0 / 3.0)});
  }
  return {sizes, std::vector<std::vector<double>>(sizes.size(), {0.5, 1.0, 2.0})};
}

/// The four 3x3 Conv2dNormActivations of both heads.
nn::Sequential retinanet_head_convs(std::int64_t channels, ops::NormLayer norm_layer) {
  constexpr int kConvs = 4;
  nn::Sequential conv;
  for (int i = 0; i < kConvs; ++i)
    conv.push(ops::Conv2dNormActivation(channels, channels, 3, {.norm_layer = norm_layer}));
  return conv;
}

/// Each map of `x` through `conv` then `last`, as [N, H W A, channels], concatenated.
Tensor retinanet_head_outputs(const std::vector<TensorView>& x, const nn::Sequential& conv,
                              const nn::Conv2d& last, std::int64_t channels) {
  std::vector<Tensor> per_level;
  per_level.reserve(x.size());
  for (const TensorView& features : x)
    per_level.push_back(detail::permute_and_flatten(last(conv(features)), channels));
  return fp::cat(per_level, 1);
}

}  // namespace

RetinaNetClassificationHead::RetinaNetClassificationHead(std::int64_t in_channels,
                                                         std::int64_t num_anchors,
                                                         std::int64_t num_classes,
                                                         ops::NormLayer norm_layer)
    : conv(retinanet_head_convs(in_channels, norm_layer)),
      cls_logits(in_channels, num_anchors * num_classes, 3, {.padding = 1}),
      num_classes(num_classes) {}

Tensor RetinaNetClassificationHead::forward(const std::vector<TensorView>& x) const {
  return retinanet_head_outputs(x, conv, cls_logits, num_classes);
}

RetinaNetRegressionHead::RetinaNetRegressionHead(std::int64_t in_channels, std::int64_t num_anchors,
                                                 ops::NormLayer norm_layer)
    : conv(retinanet_head_convs(in_channels, norm_layer)),
      bbox_reg(in_channels, num_anchors * 4, 3, {.padding = 1}) {}

Tensor RetinaNetRegressionHead::forward(const std::vector<TensorView>& x) const {
  return retinanet_head_outputs(x, conv, bbox_reg, 4);
}

RetinaNetHead::RetinaNetHead(std::int64_t in_channels, std::int64_t num_anchors,
                             std::int64_t num_classes, ops::NormLayer norm_layer)
    : classification_head(in_channels, num_anchors, num_classes, norm_layer),
      regression_head(in_channels, num_anchors, norm_layer) {}

RetinaNetHeadOutputs RetinaNetHead::forward(const std::vector<TensorView>& x) const {
  return {.cls_logits = classification_head(x), .bbox_regression = regression_head(x)};
}

namespace {

RetinaNetHead default_retinanet_head(const BackboneWithFPN& backbone,
                                     const AnchorGenerator& anchors,
                                     const RetinaNetOptions& options) {
  return {backbone.out_channels, anchors.num_anchors_per_location()[0],
          detail::num_classes_of(options, "RetinaNet")};
}

}  // namespace

RetinaNet::RetinaNet(BackboneWithFPN backbone, const RetinaNetOptions& options,
                     RetinaNetParts parts)
    : backbone(std::move(backbone)),
      anchor_generator(parts.anchor_generator ? std::move(*parts.anchor_generator)
                                              : retinanet_anchor_generator()),
      head(parts.head ? std::move(*parts.head)
                      : default_retinanet_head(this->backbone, anchor_generator, options)),
      transform(detail::dense_transform(options)),
      score_thresh(options.score_thresh.value_or(0.05)),
      nms_thresh(options.nms_thresh.value_or(0.5)),
      detections_per_img(options.detections_per_img.value_or(300)),
      topk_candidates(options.topk_candidates) {
  detail::check_dense_options("RetinaNet", score_thresh, nms_thresh, detections_per_img,
                              topk_candidates);
}

std::vector<Detection> RetinaNet::forward(const std::vector<TensorView>& images) const {
  return detail::dense_forward(*this, images);
}

std::vector<Detection> RetinaNet::postprocess_detections(
    const RetinaNetHeadOutputs& head_outputs, const std::vector<Tensor>& anchors,
    const std::vector<std::int64_t>& num_anchors_per_level,
    const std::vector<ImageSize>& image_shapes) const {
  return detail::postprocess_dense(
      {head_outputs.cls_logits, head_outputs.bbox_regression, anchors, num_anchors_per_level},
      image_shapes, detail::selection_of(*this),
      [](TensorView logits, std::int64_t /*image*/, std::size_t /*level*/) {
        return logits.sigmoid().flatten();
      },
      [this](TensorView rel_codes, TensorView boxes) {
        return box_coder.decode_single(rel_codes, boxes);
      });
}

RetinaNet retinanet_resnet50_fpn(const RetinaNetOptions& options) {
  constexpr std::int64_t kP5Channels = 256;  // P6 from P5
  return RetinaNet(detail::resnet50_p3_to_p7_backbone(options.backbone_norm_layer,
                                                      options.backbone_norm_eps, kP5Channels),
                   options);
}

RetinaNet retinanet_resnet50_fpn_v2(const RetinaNetOptions& options) {
  if (options.backbone_norm_layer != ops::NormLayer::BatchNorm2d)
    refuse_retinanet("retinanet_resnet50_fpn_v2", "backbone_norm_layer should be BatchNorm2d");
  constexpr std::int64_t kC5Channels = 2048;  // P6 from C5 (layer4's output)
  BackboneWithFPN backbone = detail::resnet50_p3_to_p7_backbone(
      ops::NormLayer::BatchNorm2d, options.backbone_norm_eps, kC5Channels);
  RetinaNetParts parts{.anchor_generator = retinanet_anchor_generator()};
  // GroupNorm(32) after the heads' convolutions.
  parts.head = RetinaNetHead(
      backbone.out_channels, parts.anchor_generator->num_anchors_per_location()[0],
      detail::num_classes_of(options, "retinanet_resnet50_fpn_v2"), ops::NormLayer::GroupNorm);
  return RetinaNet(std::move(backbone), options, std::move(parts));
}

}  // namespace fp::vision::models::detection
