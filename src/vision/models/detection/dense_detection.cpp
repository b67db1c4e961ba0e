// torchvision/models/detection/retinanet.py's and fcos.py's shared
// inference steps, op for op (the same ops on tensors of Python's shapes).
#include "vision/models/detection/dense_detection.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "flash_powder/aten/aten.h"
#include "flash_powder/base/error.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/functions.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/vision/models/resnet.h"
#include "flash_powder/vision/ops/boxes.h"
#include "flash_powder/vision/ops/nms.h"

namespace fp::vision::models::detection::detail {
namespace {

[[noreturn]] void refuse_dense_options(const char* model, const std::string& message) {
  throw Error(ErrorCode::BadArgument,
              std::string("fp::vision::models::detection::") + model + ": " + message);
}

/// COCO's categories, background included: the builders' num_classes.
constexpr std::int64_t kCocoClasses = 91;

}  // namespace

std::int64_t num_classes_of(const RetinaNetOptions& options, const char* model) {
  const std::int64_t num_classes = options.num_classes.value_or(kCocoClasses);
  if (num_classes < 1)
    refuse_dense_options(model,
                         "num_classes should be at least 1, got " + std::to_string(num_classes));
  return num_classes;
}

void check_dense_options(const char* model, double score_thresh, double nms_thresh,
                         std::int64_t detections_per_img, std::int64_t topk_candidates) {
  if (!(nms_thresh >= 0.0 && nms_thresh <= 1.0))
    refuse_dense_options(model,
                         "nms_thresh should be in [0, 1], got " + std::to_string(nms_thresh));
  if (std::isnan(score_thresh)) refuse_dense_options(model, "score_thresh should be a number");
  if (detections_per_img < 0 || topk_candidates < 0)
    refuse_dense_options(model, "detections_per_img and topk_candidates should not be negative");
}

Tensor permute_and_flatten(TensorView layer, std::int64_t channels) {
  const std::int64_t batch = layer.size(0);
  return layer.view({batch, -1, channels, layer.size(2), layer.size(3)})
      .permute({0, 3, 4, 1, 2})
      .reshape({batch, -1, channels});
}

std::vector<TensorView> feature_views(const ops::FeatureMaps& features) {
  std::vector<TensorView> maps;
  maps.reserve(features.size());
  for (const auto& named : features)
    maps.emplace_back(named.second);
  return maps;
}

std::vector<ImageSize> original_image_sizes(const std::vector<TensorView>& images) {
  std::vector<ImageSize> sizes;
  sizes.reserve(images.size());
  for (const TensorView& image : images)
    sizes.emplace_back(image.size(-2), image.size(-1));
  return sizes;
}

GeneralizedRCNNTransform dense_transform(const RetinaNetOptions& options) {
  return {options.min_size,
          options.max_size,
          options.image_mean,
          options.image_std,
          {.size_divisible = options.size_divisible, .fixed_size = options.fixed_size}};
}

std::vector<std::int64_t> anchors_per_level(const std::vector<TensorView>& maps,
                                            std::int64_t total_anchors) {
  std::int64_t positions = 0;
  for (const TensorView& map : maps)
    positions += map.size(2) * map.size(3);
  const std::int64_t anchors_per_position = total_anchors / positions;
  std::vector<std::int64_t> counts;
  counts.reserve(maps.size());
  for (const TensorView& map : maps)
    counts.push_back(map.size(2) * map.size(3) * anchors_per_position);
  return counts;
}

BackboneWithFPN resnet50_p3_to_p7_backbone(ops::NormLayer norm_layer, double norm_eps,
                                           std::int64_t p6_in_channels) {
  // P2 is skipped: it makes too many anchors (RetinaNet's paper).
  constexpr std::int64_t kFpnChannels = 256;
  return resnet_fpn_backbone(resnet50({.norm_layer = norm_layer, .norm_eps = norm_eps}),
                             {.returned_layers = std::vector<std::int64_t>{2, 3, 4},
                              .extra_blocks = ops::LastLevelP6P7(p6_in_channels, kFpnChannels)});
}

namespace {

/// One map's best candidates of one image.
struct LevelCandidates {
  Tensor scores;
  Tensor anchor_idxs;
  Tensor labels;
};

/// torchvision's "remove low scoring boxes" and "keep only topk scoring
/// predictions" over one map's flattened scores.
LevelCandidates top_candidates(TensorView scores_per_level, std::int64_t num_classes,
                               double score_thresh, std::int64_t topk_candidates) {
  const Tensor keep_idxs = scores_per_level.gt(score_thresh);
  // torch.where(keep_idxs)[0]; scores_per_level[keep_idxs] picks the same elements.
  const Tensor candidate_idxs = aten::nonzero(keep_idxs).reshape({-1});
  const Tensor candidate_scores = aten::index_select(scores_per_level, 0, candidate_idxs);
  const std::int64_t num_topk = std::min(topk_candidates, candidate_idxs.size(0));
  auto [scores, idxs] = candidate_scores.topk(num_topk);
  const Tensor topk_idxs = aten::index_select(candidate_idxs, 0, idxs);
  // torch.div(topk_idxs, num_classes, rounding_mode="floor") of non-negative integers.
  Tensor anchor_idxs = aten::floor_divide(topk_idxs, fp::full({}, num_classes, topk_idxs.dtype()));
  Tensor labels = topk_idxs % num_classes;
  return {.scores = std::move(scores),
          .anchor_idxs = std::move(anchor_idxs),
          .labels = std::move(labels)};
}

/// The maps' boxes, scores and labels of one image concatenated, then
/// batched_nms and the best detections_per_img kept.
Detection best_detections(const std::vector<Tensor>& boxes, const std::vector<Tensor>& scores,
                          const std::vector<Tensor>& labels, const DenseSelection& selection) {
  const Tensor image_boxes = fp::cat(boxes, 0);
  const Tensor image_scores = fp::cat(scores, 0);
  const Tensor image_labels = fp::cat(labels, 0);
  Tensor keep = ops::batched_nms(image_boxes, image_scores, image_labels, selection.nms_thresh);
  keep = keep.narrow(0, 0, std::min(selection.detections_per_img, keep.size(0))).to_owned();
  return {.boxes = aten::index_select(image_boxes, 0, keep),
          .labels = aten::index_select(image_labels, 0, keep),
          .scores = aten::index_select(image_scores, 0, keep)};
}

}  // namespace

std::vector<Detection> postprocess_dense(const DenseOutputs& outputs,
                                         const std::vector<ImageSize>& image_shapes,
                                         const DenseSelection& selection,
                                         const LevelScores& scores_of, const BoxDecoder& decode) {
  const std::vector<std::int64_t>& levels = outputs.num_anchors_per_level;
  const std::vector<TensorView> class_logits = outputs.cls_logits.split(levels, 1);
  const std::vector<TensorView> box_regression = outputs.bbox_regression.split(levels, 1);
  const std::int64_t num_classes = outputs.cls_logits.size(-1);
  std::vector<Detection> detections;
  detections.reserve(image_shapes.size());
  for (std::size_t index = 0; index < image_shapes.size(); ++index) {
    const auto image = static_cast<std::int64_t>(index);
    const auto [height, width] = image_shapes[index];
    const std::vector<TensorView> anchors_per_level = outputs.anchors[index].split(levels, 0);
    std::vector<Tensor> image_boxes;
    std::vector<Tensor> image_scores;
    std::vector<Tensor> image_labels;
    for (std::size_t level = 0; level < levels.size(); ++level) {
      LevelCandidates best =
          top_candidates(scores_of(class_logits[level].i(image), image, level), num_classes,
                         selection.score_thresh, selection.topk_candidates);
      const Tensor boxes =
          decode(aten::index_select(box_regression[level].i(image), 0, best.anchor_idxs),
                 aten::index_select(anchors_per_level[level], 0, best.anchor_idxs));
      image_boxes.push_back(ops::clip_boxes_to_image(boxes, height, width));
      image_scores.push_back(std::move(best.scores));
      image_labels.push_back(std::move(best.labels));
    }
    detections.push_back(best_detections(image_boxes, image_scores, image_labels, selection));
  }
  return detections;
}

}  // namespace fp::vision::models::detection::detail
