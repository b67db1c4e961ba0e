// torchvision/models/detection/rpn.py in eval mode, op for op: the
// elementwise ops (sigmoid, the decoding) run on tensors of Python's shapes.
#include "flash_powder/vision/models/detection/rpn.h"

#include <algorithm>
#include <string>
#include <utility>

#include "flash_powder/aten/aten.h"
#include "flash_powder/base/error.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/functions.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/vision/ops/boxes.h"
#include "flash_powder/vision/ops/conv_norm_activation.h"
#include "flash_powder/vision/ops/nms.h"
#include "vision/models/detection/dense_detection.h"

namespace fp::vision::models::detection {
namespace {

[[noreturn]] void refuse_rpn(const std::string& message) {
  throw Error(ErrorCode::BadArgument,
              "fp::vision::models::detection::RegionProposalNetwork: " + message);
}

/// torchvision's concat_box_prediction_layers: ([N sum H W A, 1] logits,
/// [N sum H W A, 4] deltas).
std::pair<Tensor, Tensor> concat_box_prediction_layers(const std::vector<Tensor>& box_cls,
                                                       const std::vector<Tensor>& box_regression) {
  std::vector<Tensor> cls_flattened;
  std::vector<Tensor> regression_flattened;
  for (std::size_t level = 0; level < box_cls.size(); ++level) {
    const std::int64_t anchors = box_regression[level].size(1) / 4;
    cls_flattened.push_back(
        detail::permute_and_flatten(box_cls[level], box_cls[level].size(1) / anchors));
    regression_flattened.push_back(detail::permute_and_flatten(box_regression[level], 4));
  }
  return {fp::cat(cls_flattened, 1).flatten(0, -2),
          fp::cat(regression_flattened, 1).reshape({-1, 4})};
}

/// Rows `index` ([K] int64) of `values`.
Tensor rows(TensorView values, TensorView index) {
  return aten::index_select(values, 0, index);
}

}  // namespace

RPNHead::RPNHead(std::int64_t in_channels, std::int64_t num_anchors, std::int64_t conv_depth)
    : cls_logits(in_channels, num_anchors, 1), bbox_pred(in_channels, num_anchors * 4, 1) {
  for (std::int64_t i = 0; i < conv_depth; ++i)
    conv.push(ops::Conv2dNormActivation(in_channels, in_channels, 3,
                                        {.norm_layer = ops::NormLayer::None}));
}

std::pair<std::vector<Tensor>, std::vector<Tensor>> RPNHead::forward(
    const std::vector<TensorView>& x) const {
  std::vector<Tensor> logits;
  std::vector<Tensor> bbox_reg;
  for (const TensorView& feature : x) {
    const Tensor t = conv(feature);
    logits.push_back(cls_logits(t));
    bbox_reg.push_back(bbox_pred(t));
  }
  return {std::move(logits), std::move(bbox_reg)};
}

RegionProposalNetwork::RegionProposalNetwork(AnchorGenerator anchor_generator, RPNHead head,
                                             const RPNOptions& options)
    : anchor_generator(std::move(anchor_generator)), head(std::move(head)), options(options) {
  if (options.pre_nms_top_n < 0 || options.post_nms_top_n < 0)
    refuse_rpn("pre_nms_top_n and post_nms_top_n should not be negative");
  if (!(options.nms_thresh >= 0.0 && options.nms_thresh <= 1.0))
    refuse_rpn("nms_thresh should be in [0, 1], got " + std::to_string(options.nms_thresh));
}

std::vector<Tensor> RegionProposalNetwork::forward(const ImageList& images,
                                                   const ops::FeatureMaps& features) const {
  const std::vector<TensorView> maps = detail::feature_views(features);
  const auto [objectness, pred_bbox_deltas] = head(maps);
  const std::vector<Tensor> anchors = anchor_generator(images, maps);
  const auto num_images = static_cast<std::int64_t>(anchors.size());
  std::vector<std::int64_t> num_anchors_per_level;
  for (const Tensor& level : objectness)
    num_anchors_per_level.push_back(level.size(1) * level.size(2) * level.size(3));
  const auto [flat_objectness, flat_deltas] =
      concat_box_prediction_layers(objectness, pred_bbox_deltas);
  const Tensor proposals = box_coder.decode(flat_deltas, anchors).reshape({num_images, -1, 4});
  return filter_proposals(proposals, flat_objectness, images.image_sizes, num_anchors_per_level);
}

std::vector<Tensor> RegionProposalNetwork::filter_proposals(
    const Tensor& proposals, const Tensor& objectness, const std::vector<ImageSize>& image_shapes,
    const std::vector<std::int64_t>& num_anchors_per_level) const {
  const std::int64_t num_images = proposals.size(0);
  const Tensor scores_all = objectness.reshape({num_images, -1});
  std::vector<Tensor> level_ids;
  for (std::size_t level = 0; level < num_anchors_per_level.size(); ++level)
    level_ids.push_back(
        fp::full({num_anchors_per_level[level]}, static_cast<std::int64_t>(level), DType::I64));
  const Tensor levels_all =
      fp::cat(level_ids, 0).reshape({1, -1}).expand({num_images, scores_all.size(1)}).to_owned();

  // torchvision's _get_top_n_idx: the best pre_nms_top_n of each level.
  std::vector<Tensor> top_n_parts;
  std::int64_t offset = 0;
  for (const TensorView& level : scores_all.split(num_anchors_per_level, 1)) {
    const std::int64_t top_n = std::min(options.pre_nms_top_n, level.size(1));
    const auto [values, index] = level.topk(top_n, 1);
    top_n_parts.push_back(index + offset);
    offset += level.size(1);
  }
  const Tensor top_n_idx = fp::cat(top_n_parts, 1);
  const Tensor scores_top = aten::gather(scores_all, 1, top_n_idx);
  const Tensor levels_top = aten::gather(levels_all, 1, top_n_idx);
  const Tensor proposals_top =
      aten::gather(proposals, 1, top_n_idx.unsqueeze(2).expand({num_images, top_n_idx.size(1), 4}));
  const Tensor probabilities = scores_top.sigmoid();

  std::vector<Tensor> final_boxes;
  for (std::int64_t i = 0; i < num_images; ++i) {
    const auto [height, width] = image_shapes[static_cast<std::size_t>(i)];
    Tensor boxes = ops::clip_boxes_to_image(proposals_top.i(i), height, width);
    Tensor keep = ops::remove_small_boxes(boxes, min_size);
    boxes = rows(boxes, keep);
    Tensor scores = rows(probabilities.i(i), keep);
    Tensor lvl = rows(levels_top.i(i), keep);
    keep = aten::nonzero(scores.ge(options.score_thresh)).reshape({-1});
    boxes = rows(boxes, keep);
    scores = rows(scores, keep);
    lvl = rows(lvl, keep);
    keep = ops::batched_nms(boxes, scores, lvl, options.nms_thresh);
    keep = keep.narrow(0, 0, std::min(options.post_nms_top_n, keep.size(0))).to_owned();
    final_boxes.push_back(rows(boxes, keep));
  }
  return final_boxes;
}

}  // namespace fp::vision::models::detection
