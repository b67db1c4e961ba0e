// torchvision/models/detection/faster_rcnn.py: FasterRCNN and its builders
// (weights=None, weights_backbone=None: nn.BatchNorm2d in the backbone).
#include "flash_powder/vision/models/detection/faster_rcnn.h"

#include <string>
#include <utility>

#include "flash_powder/base/error.h"

#include "flash_powder/vision/models/mobilenetv3.h"
#include "flash_powder/vision/models/resnet.h"

namespace fp::vision::models::detection {
namespace {

/// torchvision's _default_anchorgen: sizes 32 .. 512, one per map, three ratios each.
AnchorGenerator default_anchor_generator() {
  return {{{32}, {64}, {128}, {256}, {512}}, std::vector<std::vector<double>>(5, {0.5, 1.0, 2.0})};
}

/// The builder's own defaults under the options the caller set.
struct BuilderDefaults {
  std::int64_t num_classes = 91;
  std::int64_t min_size = 800;
  std::int64_t max_size = 1333;
  std::int64_t rpn_pre_nms_top_n_test = 1000;
  std::int64_t rpn_post_nms_top_n_test = 1000;
  double rpn_score_thresh = 0.0;
};

FasterRCNNOptions with_defaults(FasterRCNNOptions options, const BuilderDefaults& defaults) {
  options.num_classes = options.num_classes.value_or(defaults.num_classes);
  options.min_size = options.min_size.value_or(defaults.min_size);
  options.max_size = options.max_size.value_or(defaults.max_size);
  options.rpn_pre_nms_top_n_test =
      options.rpn_pre_nms_top_n_test.value_or(defaults.rpn_pre_nms_top_n_test);
  options.rpn_post_nms_top_n_test =
      options.rpn_post_nms_top_n_test.value_or(defaults.rpn_post_nms_top_n_test);
  options.rpn_score_thresh = options.rpn_score_thresh.value_or(defaults.rpn_score_thresh);
  return options;
}

RegionProposalNetwork make_rpn(std::int64_t out_channels, const FasterRCNNOptions& options,
                               FasterRCNNParts& parts) {
  AnchorGenerator anchors = parts.rpn_anchor_generator ? std::move(*parts.rpn_anchor_generator)
                                                       : default_anchor_generator();
  RPNHead head = parts.rpn_head ? std::move(*parts.rpn_head)
                                : RPNHead(out_channels, anchors.num_anchors_per_location()[0]);
  return {std::move(anchors),
          std::move(head),
          {.pre_nms_top_n = *options.rpn_pre_nms_top_n_test,
           .post_nms_top_n = *options.rpn_post_nms_top_n_test,
           .nms_thresh = options.rpn_nms_thresh,
           .score_thresh = *options.rpn_score_thresh}};
}

RoIHeads make_roi_heads(std::int64_t out_channels, const FasterRCNNOptions& options,
                        FasterRCNNParts& parts) {
  constexpr std::int64_t kResolution = 7;
  constexpr std::int64_t kRepresentationSize = 1024;
  std::unique_ptr<nn::Module> box_head = std::move(parts.box_head);
  if (!box_head)
    box_head =
        std::make_unique<TwoMLPHead>(out_channels * kResolution * kResolution, kRepresentationSize);
  return {ops::MultiScaleRoIAlign({"0", "1", "2", "3"}, {kResolution, kResolution}, 2),
          std::move(box_head),
          FastRCNNPredictor(kRepresentationSize, *options.num_classes),
          {.score_thresh = options.box_score_thresh,
           .nms_thresh = options.box_nms_thresh,
           .detections_per_img = options.box_detections_per_img,
           .bbox_reg_weights = options.bbox_reg_weights}};
}

FasterRCNNOptions complete(const FasterRCNNOptions& options) {
  if (options.num_keypoints)
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::detection::FasterRCNN: num_keypoints is Keypoint R-CNN's "
                "option");
  return with_defaults(options, {});
}

}  // namespace

namespace detail {

/// What FasterRCNN builds around its backbone.
struct RCNNPieces {
  RegionProposalNetwork rpn;
  RoIHeads roi_heads;
  GeneralizedRCNNTransform transform;
};

}  // namespace detail

namespace {

detail::RCNNPieces make_pieces(std::int64_t out_channels, const FasterRCNNOptions& options,
                               FasterRCNNParts& parts) {
  return {.rpn = make_rpn(out_channels, options, parts),
          .roi_heads = make_roi_heads(out_channels, options, parts),
          .transform = GeneralizedRCNNTransform(
              *options.min_size, *options.max_size, options.image_mean, options.image_std,
              {.size_divisible = options.size_divisible, .fixed_size = options.fixed_size})};
}

FasterRCNN mobilenet_v3_large_fpn(const FasterRCNNOptions& options) {
  BackboneWithFPN backbone =
      mobilenet_backbone(mobilenet_v3_large({.norm_eps = options.backbone_norm_eps,
                                             .norm_layer = options.backbone_norm_layer}),
                         {});
  const std::vector<std::int64_t> anchor_sizes{32, 64, 128, 256, 512};
  FasterRCNNParts parts;
  parts.rpn_anchor_generator =
      AnchorGenerator(std::vector<std::vector<std::int64_t>>(3, anchor_sizes),
                      std::vector<std::vector<double>>(3, {0.5, 1.0, 2.0}));
  return FasterRCNN(std::move(backbone), options, std::move(parts));
}

/// fasterrcnn_resnet50_fpn_v2's backbone, which torchvision never freezes.
void refuse_frozen(const FasterRCNNOptions& options, const char* builder) {
  if (options.backbone_norm_layer != ops::NormLayer::BatchNorm2d)
    throw Error(ErrorCode::BadArgument, std::string("fp::vision::models::detection::") + builder +
                                            ": backbone_norm_layer should be BatchNorm2d");
}

}  // namespace

namespace detail {

ResNet detection_resnet50(const FasterRCNNOptions& options) {
  return resnet50(
      {.norm_layer = options.backbone_norm_layer, .norm_eps = options.backbone_norm_eps});
}

BackboneWithFPN detection_resnet50_fpn_v2(const FasterRCNNOptions& options, const char* builder) {
  refuse_frozen(options, builder);
  return resnet_fpn_backbone(resnet50({.norm_eps = options.backbone_norm_eps}),
                             {.norm_layer = ops::NormLayer::BatchNorm2d});
}

}  // namespace detail

FasterRCNN::FasterRCNN(BackboneWithFPN backbone, const FasterRCNNOptions& options,
                       FasterRCNNParts parts)
    : FasterRCNN(make_pieces(backbone.out_channels, complete(options), parts),
                 std::move(backbone)) {}

FasterRCNN::FasterRCNN(detail::RCNNPieces&& pieces, BackboneWithFPN&& backbone)
    : GeneralizedRCNN(std::move(backbone), std::move(pieces.rpn), std::move(pieces.roi_heads),
                      std::move(pieces.transform)) {}

FasterRCNN fasterrcnn_resnet50_fpn(const FasterRCNNOptions& options) {
  return FasterRCNN(resnet_fpn_backbone(detail::detection_resnet50(options)), options);
}

FasterRCNNParts fasterrcnn_v2_parts(std::int64_t out_channels) {
  FasterRCNNParts parts;
  const AnchorGenerator anchors = default_anchor_generator();
  parts.rpn_head = RPNHead(out_channels, anchors.num_anchors_per_location()[0], 2);
  parts.box_head = std::make_unique<FastRCNNConvFCHead>(
      std::array<std::int64_t, 3>{out_channels, 7, 7},
      std::vector<std::int64_t>{256, 256, 256, 256}, std::vector<std::int64_t>{1024},
      ops::NormLayer::BatchNorm2d);
  return parts;
}

FasterRCNN fasterrcnn_resnet50_fpn_v2(const FasterRCNNOptions& options) {
  BackboneWithFPN backbone =
      detail::detection_resnet50_fpn_v2(options, "fasterrcnn_resnet50_fpn_v2");
  FasterRCNNParts parts = fasterrcnn_v2_parts(backbone.out_channels);
  return FasterRCNN(std::move(backbone), options, std::move(parts));
}

FasterRCNN fasterrcnn_mobilenet_v3_large_fpn(const FasterRCNNOptions& options) {
  return mobilenet_v3_large_fpn(with_defaults(options, {.rpn_score_thresh = 0.05}));
}

FasterRCNN fasterrcnn_mobilenet_v3_large_320_fpn(const FasterRCNNOptions& options) {
  return mobilenet_v3_large_fpn(with_defaults(options, {.min_size = 320,
                                                        .max_size = 640,
                                                        .rpn_pre_nms_top_n_test = 150,
                                                        .rpn_post_nms_top_n_test = 150,
                                                        .rpn_score_thresh = 0.05}));
}

}  // namespace fp::vision::models::detection
