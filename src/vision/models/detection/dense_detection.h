// What torchvision's one-stage detectors (RetinaNet, FCOS) share in eval
// mode: their heads' [N, A C, H, W] -> [N, H W A, C] permutation (the RPN's
// too) and their postprocess_detections' per-level candidate selection and
// per-image non-maximum suppression, op for op.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "flash_powder/core/tensor.h"
#include "flash_powder/vision/models/detection/backbone_utils.h"
#include "flash_powder/vision/models/detection/image_list.h"
#include "flash_powder/vision/models/detection/retinanet.h"
#include "flash_powder/vision/models/detection/roi_heads.h"
#include "flash_powder/vision/models/detection/transform.h"
#include "flash_powder/vision/ops/feature_pyramid_network.h"

namespace fp::vision::models::detection::detail {

/// torchvision's permute_and_flatten (and the heads' view, permute,
/// reshape): [N, A C, H, W] -> [N, H W A, C].
Tensor permute_and_flatten(TensorView layer, std::int64_t channels);

/// The maps of `features`, in order.
std::vector<TensorView> feature_views(const ops::FeatureMaps& features);

/// `options.num_classes`, or COCO's 91; fp::Error (BadArgument) naming
/// `model` when it is below 1.
std::int64_t num_classes_of(const RetinaNetOptions& options, const char* model);

/// RetinaNet's and FCOS's checks of their inference options: fp::Error
/// (BadArgument) naming `model` for nms_thresh outside [0, 1], a NaN
/// score_thresh, or negative counts.
void check_dense_options(const char* model, double score_thresh, double nms_thresh,
                         std::int64_t detections_per_img, std::int64_t topk_candidates);

/// The (height, width) of each of `images`, as the models' forwards record them.
std::vector<ImageSize> original_image_sizes(const std::vector<TensorView>& images);

/// torchvision's "recover level sizes": H W A of each map of `maps`, A
/// being `total_anchors` over the maps' positions.
std::vector<std::int64_t> anchors_per_level(const std::vector<TensorView>& maps,
                                            std::int64_t total_anchors);

/// retinanet_resnet50_fpn's and fcos_resnet50_fpn's backbone: a ResNet-50
/// of `norm_layer` and `norm_eps`, its layers 2 to 4 through a 256-channel
/// pyramid, and LastLevelP6P7(`p6_in_channels`, 256) (P6 from P5 when 256,
/// from C5 when 2048).
BackboneWithFPN resnet50_p3_to_p7_backbone(ops::NormLayer norm_layer, double norm_eps,
                                           std::int64_t p6_in_channels);

/// The inference settings of postprocess_detections.
struct DenseSelection {
  /// The least score kept.
  double score_thresh;
  /// The most candidates per map.
  std::int64_t topk_candidates;
  /// The per-class NMS threshold.
  double nms_thresh;
  /// The most detections per image.
  std::int64_t detections_per_img;
};

/// RetinaNet's and FCOS's transform of `options`.
GeneralizedRCNNTransform dense_transform(const RetinaNetOptions& options);

/// The inference settings of `model` (a RetinaNet or an FCOS).
template <class Model>
DenseSelection selection_of(const Model& model) {
  return {.score_thresh = model.score_thresh,
          .topk_candidates = model.topk_candidates,
          .nms_thresh = model.nms_thresh,
          .detections_per_img = model.detections_per_img};
}

/// One map's scores of one image, [H W A, num_classes] flattened, from its
/// class logits ([H W A, num_classes]).
using LevelScores = std::function<Tensor(TensorView logits, std::int64_t image, std::size_t level)>;
/// Boxes decoded from their regression outputs and anchors (rows of both).
using BoxDecoder = std::function<Tensor(TensorView rel_codes, TensorView anchors)>;

/// What postprocess_dense selects from: the head's outputs over all maps,
/// each image's anchors and the anchors of each map.
struct DenseOutputs {
  /// [N, sum of H W A, num_classes].
  const Tensor& cls_logits;
  /// [N, sum of H W A, 4].
  const Tensor& bbox_regression;
  /// One [sum of H W A, 4] tensor per image.
  const std::vector<Tensor>& anchors;
  /// H W A of each map.
  const std::vector<std::int64_t>& num_anchors_per_level;
};

/// torchvision's RetinaNet and FCOS postprocess_detections: per image and
/// map, the best `selection.topk_candidates` of `scores_of` above
/// `selection.score_thresh`, their boxes decoded by `decode` and clipped to
/// `image_shapes`; then, per image, batched NMS and the best
/// `selection.detections_per_img`.
std::vector<Detection> postprocess_dense(const DenseOutputs& outputs,
                                         const std::vector<ImageSize>& image_shapes,
                                         const DenseSelection& selection,
                                         const LevelScores& scores_of, const BoxDecoder& decode);

/// RetinaNet's and FCOS's forward in eval mode: `model`'s transform,
/// backbone, head and anchors, its postprocess_detections and the boxes
/// mapped back to each image's own size.
template <class Model>
std::vector<Detection> dense_forward(const Model& model, const std::vector<TensorView>& images) {
  const ImageList batch = model.transform(images);  // checks every image first
  const std::vector<ImageSize> original_sizes = original_image_sizes(images);
  const ops::FeatureMaps features = model.backbone(batch.tensors);
  const std::vector<TensorView> maps = feature_views(features);
  const auto head_outputs = model.head(maps);
  const std::vector<Tensor> anchors = model.anchor_generator(batch, maps);
  std::vector<Detection> detections = model.postprocess_detections(
      head_outputs, anchors, anchors_per_level(maps, head_outputs.cls_logits.size(1)),
      batch.image_sizes);
  return model.transform.postprocess(std::move(detections), batch.image_sizes, original_sizes);
}

}  // namespace fp::vision::models::detection::detail
