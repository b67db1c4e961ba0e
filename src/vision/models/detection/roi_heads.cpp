// torchvision/models/detection/roi_heads.py (RoIHeads' box branch in eval
// mode) and faster_rcnn.py's box heads, op for op.
#include "flash_powder/vision/models/detection/roi_heads.h"

#include <algorithm>
#include <string>
#include <utility>

#include "flash_powder/aten/aten.h"
#include "flash_powder/base/error.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/functions.h"
#include "flash_powder/functional/activation.h"
#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/nn/layers/flatten.h"
#include "flash_powder/vision/ops/boxes.h"
#include "flash_powder/vision/ops/nms.h"

namespace fp::vision::models::detection {
namespace {

[[noreturn]] void refuse_heads(const std::string& where, const std::string& message) {
  throw Error(ErrorCode::BadArgument, "fp::vision::models::detection::" + where + ": " + message);
}

/// Entries `index` ([K] int64) of `values` along its first dimension.
Tensor select_rows(TensorView values, TensorView index) {
  return aten::index_select(values, 0, index);
}

}  // namespace

TwoMLPHead::TwoMLPHead(std::int64_t in_channels, std::int64_t representation_size)
    : fc6(in_channels, representation_size), fc7(representation_size, representation_size) {}

Tensor TwoMLPHead::forward(TensorView input) const {
  const Tensor x = functional::relu(fc6(input.flatten(1)));
  return functional::relu(fc7(x));
}

FastRCNNConvFCHead::FastRCNNConvFCHead(std::array<std::int64_t, 3> input_size,
                                       const std::vector<std::int64_t>& conv_layers,
                                       const std::vector<std::int64_t>& fc_layers,
                                       ops::NormLayer norm_layer) {
  const auto [in_channels, in_height, in_width] = input_size;
  std::int64_t previous = in_channels;
  for (const std::int64_t channels : conv_layers) {
    push(ops::Conv2dNormActivation(previous, channels, 3, {.norm_layer = norm_layer}));
    previous = channels;
  }
  push(nn::Flatten());
  previous *= in_height * in_width;
  for (const std::int64_t features : fc_layers) {
    push(nn::Linear(previous, features)).push(nn::ReLU());
    previous = features;
  }
}

FastRCNNPredictor::FastRCNNPredictor(std::int64_t in_channels, std::int64_t num_classes)
    : cls_score(in_channels, num_classes), bbox_pred(in_channels, num_classes * 4) {}

std::pair<Tensor, Tensor> FastRCNNPredictor::forward(TensorView x) const {
  if (x.dim() == 4 && (x.size(2) != 1 || x.size(3) != 1))
    refuse_heads("FastRCNNPredictor",
                 "x has the wrong shape, expecting the last two dimensions "
                 "to be [1,1]");
  const Tensor flat = x.flatten(1);
  return {cls_score(flat), bbox_pred(flat)};
}

RoIHeads::RoIHeads(ops::MultiScaleRoIAlign box_roi_pool, std::unique_ptr<nn::Module> box_head,
                   FastRCNNPredictor box_predictor, const RoIHeadsOptions& options)
    : box_roi_pool(std::move(box_roi_pool)),
      box_head(std::move(box_head)),
      box_predictor(std::move(box_predictor)),
      box_coder{.weights = options.bbox_reg_weights},
      options(options) {
  if (this->box_head == nullptr) refuse_heads("RoIHeads", "no box_head");
  if (!(options.nms_thresh >= 0.0 && options.nms_thresh <= 1.0))
    refuse_heads("RoIHeads",
                 "box_nms_thresh should be in [0, 1], got " + std::to_string(options.nms_thresh));
  if (options.detections_per_img < 0)
    refuse_heads("RoIHeads", "box_detections_per_img should not be negative");
}

std::vector<Detection> RoIHeads::forward(const ops::FeatureMaps& features,
                                         const std::vector<Tensor>& proposals,
                                         const std::vector<ImageSize>& image_shapes) const {
  const std::vector<TensorView> boxes(proposals.begin(), proposals.end());
  const Tensor pooled = box_roi_pool(features, boxes, image_shapes);
  const Tensor box_features = (*box_head)(pooled);
  const auto [class_logits, box_regression] = box_predictor(box_features);
  std::vector<Detection> result =
      postprocess_detections(class_logits, box_regression, proposals, image_shapes);
  if (mask_roi_pool && mask_head && mask_predictor) add_masks(features, result, image_shapes);
  if (keypoint_roi_pool && keypoint_head && keypoint_predictor)
    add_keypoints(features, result, image_shapes);
  return result;
}

void RoIHeads::add_keypoints(const ops::FeatureMaps& features, std::vector<Detection>& result,
                             const std::vector<ImageSize>& image_shapes) const {
  std::vector<TensorView> keypoint_proposals;
  std::vector<std::int64_t> boxes_per_image;
  keypoint_proposals.reserve(result.size());
  boxes_per_image.reserve(result.size());
  for (const Detection& detection : result) {
    keypoint_proposals.emplace_back(detection.boxes);
    boxes_per_image.push_back(detection.boxes.size(0));
  }
  const Tensor keypoint_features =
      (*keypoint_head)((*keypoint_roi_pool)(features, keypoint_proposals, image_shapes));
  const Tensor keypoint_logits = (*keypoint_predictor)(keypoint_features);
  // torchvision's keypointrcnn_inference: heatmaps_to_keypoints per image.
  const std::vector<TensorView> per_image = keypoint_logits.split(boxes_per_image, 0);
  for (std::size_t image = 0; image < result.size(); ++image) {
    auto [keypoints, scores] = heatmaps_to_keypoints(per_image[image], result[image].boxes);
    result[image].keypoints = std::move(keypoints);
    result[image].keypoints_scores = std::move(scores);
  }
}

void RoIHeads::add_masks(const ops::FeatureMaps& features, std::vector<Detection>& result,
                         const std::vector<ImageSize>& image_shapes) const {
  std::vector<TensorView> mask_proposals;
  std::vector<Tensor> labels;
  std::vector<std::int64_t> boxes_per_image;
  for (const Detection& detection : result) {
    mask_proposals.emplace_back(detection.boxes);
    labels.push_back(detection.labels);
    boxes_per_image.push_back(detection.labels.size(0));
  }
  const Tensor mask_features =
      (*mask_head)((*mask_roi_pool)(features, mask_proposals, image_shapes));
  // torchvision's maskrcnn_inference: sigmoid, then the map of each detection's label.
  const Tensor mask_prob = (*mask_predictor)(mask_features).sigmoid();
  const Tensor all_labels = fp::cat(labels, 0).contiguous();
  const auto label_of = all_labels.data<std::int64_t>();
  std::vector<Tensor> chosen;
  chosen.reserve(label_of.size());
  for (std::size_t k = 0; k < label_of.size(); ++k)
    chosen.push_back(
        mask_prob.i(static_cast<std::int64_t>(k), label_of[k]).unsqueeze(0).to_owned());
  const Tensor masks =
      chosen.empty() ? fp::zeros({0, 1, mask_prob.size(-2), mask_prob.size(-1)}, mask_prob.dtype())
                     : fp::stack(chosen, 0);
  const std::vector<TensorView> per_image = masks.split(boxes_per_image, 0);
  for (std::size_t image = 0; image < result.size(); ++image)
    result[image].masks = per_image[image].to_owned();
}

std::vector<Detection> RoIHeads::postprocess_detections(
    TensorView class_logits, TensorView box_regression, const std::vector<Tensor>& proposals,
    const std::vector<ImageSize>& image_shapes) const {
  const std::int64_t num_classes = class_logits.size(-1);
  std::vector<std::int64_t> boxes_per_image;
  boxes_per_image.reserve(proposals.size());
  for (const Tensor& boxes : proposals)
    boxes_per_image.push_back(boxes.size(0));
  const Tensor pred_boxes = box_coder.decode(box_regression, proposals);
  const Tensor pred_scores = functional::softmax(class_logits, -1);
  const std::vector<TensorView> boxes_list = pred_boxes.split(boxes_per_image, 0);
  const std::vector<TensorView> scores_list = pred_scores.split(boxes_per_image, 0);

  std::vector<Detection> result;
  result.reserve(proposals.size());
  for (std::size_t image = 0; image < proposals.size(); ++image) {
    const auto [height, width] = image_shapes[image];
    const Tensor clipped = ops::clip_boxes_to_image(boxes_list[image], height, width);
    const TensorView& scores_all = scores_list[image];
    const Tensor labels_all =
        fp::arange(num_classes).view({1, -1}).expand({scores_all.size(0), num_classes}).to_owned();
    // Every class prediction but the background's becomes a separate instance.
    Tensor boxes = clipped.i(fp::all, fp::slice(1, fp::end)).reshape({-1, 4});
    Tensor scores = scores_all.i(fp::all, fp::slice(1, fp::end)).reshape({-1});
    Tensor labels = labels_all.i(fp::all, fp::slice(1, fp::end)).reshape({-1});

    Tensor keep = aten::nonzero(scores.gt(options.score_thresh)).reshape({-1});
    boxes = select_rows(boxes, keep);
    scores = select_rows(scores, keep);
    labels = select_rows(labels, keep);
    keep = ops::remove_small_boxes(boxes, 1e-2);
    boxes = select_rows(boxes, keep);
    scores = select_rows(scores, keep);
    labels = select_rows(labels, keep);
    keep = ops::batched_nms(boxes, scores, labels, options.nms_thresh);
    keep = keep.narrow(0, 0, std::min(options.detections_per_img, keep.size(0))).to_owned();
    result.push_back({.boxes = select_rows(boxes, keep),
                      .labels = select_rows(labels, keep),
                      .scores = select_rows(scores, keep)});
  }
  return result;
}

}  // namespace fp::vision::models::detection
