// torchvision's Faster R-CNN models (torchvision.models.detection.faster_rcnn),
// with its state-dict keys ("backbone.body.layer1.0.conv1.weight",
// "rpn.head.cls_logits.bias", "roi_heads.box_predictor.bbox_pred.weight").
// https://pytorch.org/vision/stable/models/faster_rcnn.html
//
//     auto net = fp::vision::models::detection::fasterrcnn_resnet50_fpn();
//     net.load_state_dict(fp::safetensors::MappedFile::open("fasterrcnn_resnet50_fpn.safetensors"));
//     std::vector<fp::vision::models::detection::Detection> found = net({image1, image2});
//     // found[0].boxes [N, 4], found[0].labels [N] (COCO's 91 categories), found[0].scores [N]
//
// Images are [3, H, W] float in [0, 1], each of its own size; the builders
// make torchvision's model with weights=None (and weights_backbone=None).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "flash_powder/nn/module.h"
#include "flash_powder/vision/models/detection/anchor_utils.h"
#include "flash_powder/vision/models/detection/backbone_utils.h"
#include "flash_powder/vision/models/detection/generalized_rcnn.h"
#include "flash_powder/vision/models/detection/rpn.h"
#include "flash_powder/vision/models/resnet.h"
#include "flash_powder/vision/ops/conv_norm_activation.h"

namespace fp::vision::models::detection {

struct FasterRCNNOptions;

namespace detail {
struct RCNNPieces;
/// The ResNet-50 of the R-CNN builders, with the options' backbone norm.
ResNet detection_resnet50(const FasterRCNNOptions& options);
/// The backbone of the _v2 builders (BatchNorm2d in the FPN too); fp::Error
/// naming `builder` for another backbone norm.
BackboneWithFPN detection_resnet50_fpn_v2(const FasterRCNNOptions& options, const char* builder);
}  // namespace detail

/// The keyword arguments of torchvision's FasterRCNN and its builders that
/// act in inference. Those left empty take the builder's default
/// (torchvision's FasterRCNN's unless the builder says otherwise).
struct FasterRCNNOptions {
  /// The classes scored, background included (COCO's 91; 2 for Keypoint R-CNN).
  std::optional<std::int64_t> num_classes{};
  /// Keypoint R-CNN's keypoints per detection (COCO's 17); fp::Error for
  /// the other models.
  std::optional<std::int64_t> num_keypoints{};
  /// The shorter side's size after resizing (800; 320 for the _320_ model).
  std::optional<std::int64_t> min_size{};
  /// The longer side's limit (1333; 640 for the _320_ model).
  std::optional<std::int64_t> max_size{};
  /// Per-channel means of the normalisation (ImageNet's).
  std::vector<double> image_mean{0.485, 0.456, 0.406};
  /// Per-channel standard deviations (ImageNet's).
  std::vector<double> image_std{0.229, 0.224, 0.225};
  /// Proposals kept per map before NMS (rpn_pre_nms_top_n_test: 1000; 150 for the _320_ model).
  std::optional<std::int64_t> rpn_pre_nms_top_n_test{};
  /// Proposals kept per image after NMS (rpn_post_nms_top_n_test: 1000; 150 for the _320_ model).
  std::optional<std::int64_t> rpn_post_nms_top_n_test{};
  /// The RPN's NMS threshold.
  double rpn_nms_thresh = 0.7;
  /// The least objectness probability of a proposal (0; 0.05 for the MobileNet models).
  std::optional<double> rpn_score_thresh{};
  /// The least class probability of a detection.
  double box_score_thresh = 0.05;
  /// The per-class NMS threshold of the detections.
  double box_nms_thresh = 0.5;
  /// The most detections per image.
  std::int64_t box_detections_per_img = 100;
  /// The box coder's weights of the RoI heads.
  std::array<double, 4> bbox_reg_weights{10.0, 10.0, 5.0, 5.0};
  /// The backbone's norm: BatchNorm2d (torchvision's builders without
  /// weights) or FrozenBatchNorm2d (with weights, as its COCO checkpoints
  /// run). The v2 builder takes BatchNorm2d only, as torchvision's.
  ops::NormLayer backbone_norm_layer = ops::NormLayer::BatchNorm2d;
  /// The backbone norms' eps: torchvision's COCO checkpoints of
  /// fasterrcnn_resnet50_fpn, maskrcnn_resnet50_fpn and
  /// keypointrcnn_resnet50_fpn run with 0 (its builders' overwrite_eps),
  /// the MobileNet ones with 1e-5.
  double backbone_norm_eps = 1e-5;
  /// The transform's size_divisible.
  std::int64_t size_divisible = 32;
  /// The transform's fixed_size (width, height).
  std::optional<std::pair<std::int64_t, std::int64_t>> fixed_size{};
};

/// The parts a FasterRCNN may be given instead of its defaults.
struct FasterRCNNParts {
  /// The anchors (torchvision's _default_anchorgen: sizes 32 .. 512, one per map).
  std::optional<AnchorGenerator> rpn_anchor_generator{};
  /// The RPN head (RPNHead(out_channels, anchors per location)).
  std::optional<RPNHead> rpn_head{};
  /// The box head (TwoMLPHead(out_channels * 7 * 7, 1024)).
  std::unique_ptr<nn::Module> box_head{};
};

/// The RPN head (conv_depth 2) and box head (FastRCNNConvFCHead with
/// BatchNorm2d) of torchvision's _v2 builders over `out_channels` maps.
FasterRCNNParts fasterrcnn_v2_parts(std::int64_t out_channels);

/// torchvision.models.detection.FasterRCNN.
class FasterRCNN : public GeneralizedRCNN {
 public:
  /// Faster R-CNN over `backbone`, with `options` and `parts`.
  explicit FasterRCNN(BackboneWithFPN backbone, const FasterRCNNOptions& options = {},
                      FasterRCNNParts parts = {});

 private:
  FasterRCNN(detail::RCNNPieces&& pieces, BackboneWithFPN&& backbone);
};

/// https://pytorch.org/vision/stable/models/generated/torchvision.models.detection.fasterrcnn_resnet50_fpn.html
FasterRCNN fasterrcnn_resnet50_fpn(const FasterRCNNOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.detection.fasterrcnn_resnet50_fpn_v2.html
FasterRCNN fasterrcnn_resnet50_fpn_v2(const FasterRCNNOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.detection.fasterrcnn_mobilenet_v3_large_fpn.html
FasterRCNN fasterrcnn_mobilenet_v3_large_fpn(const FasterRCNNOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn.html
FasterRCNN fasterrcnn_mobilenet_v3_large_320_fpn(const FasterRCNNOptions& options = {});

}  // namespace fp::vision::models::detection
