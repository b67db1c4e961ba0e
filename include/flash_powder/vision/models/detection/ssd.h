// torchvision's SSD (torchvision.models.detection.ssd): single-shot
// detection from several feature maps at a fixed input size, with its
// state-dict keys ("backbone.features.0.weight", "backbone.scale_weight",
// "backbone.extra.0.1.weight", "head.classification_head.module_list.0.weight").
// https://pytorch.org/vision/stable/models/ssd.html
//
//     auto net = fp::vision::models::detection::ssd300_vgg16();
//     net.load_state_dict(fp::safetensors::MappedFile::open("ssd300_vgg16.safetensors"));
//     std::vector<fp::vision::models::detection::Detection> found = net({image1, image2});
//     // found[0].boxes [N, 4], found[0].labels [N] (COCO's 91 categories), found[0].scores [N]
//
// Images are [3, H, W] float in [0, 1], each of its own size (resized to
// 300 x 300 inside); the builder makes torchvision's model with weights=None
// and weights_backbone=None.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "flash_powder/core/tensor.h"
#include "flash_powder/nn/define.h"
#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/module.h"
#include "flash_powder/vision/models/detection/box_coder.h"
#include "flash_powder/vision/models/detection/default_box_generator.h"
#include "flash_powder/vision/models/detection/detection_model.h"
#include "flash_powder/vision/models/detection/roi_heads.h"
#include "flash_powder/vision/models/detection/transform.h"

namespace fp::vision::models::detection {

/// The keyword arguments of torchvision's SSD and its builders that act in
/// inference. Those left empty take the builder's default (SSD's own unless
/// the builder says otherwise).
struct SSDOptions {
  /// The classes scored, background included (COCO's 91); at least 2.
  std::optional<std::int64_t> num_classes{};
  /// Per-channel means of the normalisation (ImageNet's; ssd300_vgg16:
  /// 0.48235, 0.45882, 0.40784; ssdlite: 0.5 each).
  std::optional<std::vector<double>> image_mean{};
  /// Per-channel standard deviations (ImageNet's; ssd300_vgg16: 1 / 255
  /// each; ssdlite: 0.5 each).
  std::optional<std::vector<double>> image_std{};
  /// The least class probability of a detection (0.01; ssdlite: 0.001).
  std::optional<double> score_thresh{};
  /// The per-class NMS threshold (0.45; ssdlite: 0.55).
  std::optional<double> nms_thresh{};
  /// The most detections per image (200; ssdlite: 300).
  std::optional<std::int64_t> detections_per_img{};
  /// The best boxes kept per class before NMS (400; ssdlite: 300).
  std::optional<std::int64_t> topk_candidates{};
  /// ssdlite320_mobilenet_v3_large's MobileNetV3 width (torchvision passes
  /// it on to mobilenet_v3_large; the extra blocks keep theirs); fp::Error
  /// for ssd300_vgg16.
  std::optional<double> width_mult{};
  /// ssdlite320_mobilenet_v3_large's MobileNetV3 `reduced_tail`: true as
  /// torchvision builds it with weights or without backbone weights, false
  /// as with ImageNet backbone weights; fp::Error for ssd300_vgg16.
  std::optional<bool> reduced_tail{};
  /// ssdlite320_mobilenet_v3_large's `norm_layer` (MobileNetV3, the extra
  /// blocks and the heads): BatchNorm2d or FrozenBatchNorm2d; when absent,
  /// the builder's partial(nn.BatchNorm2d, eps=0.001). fp::Error for
  /// ssd300_vgg16 and for other layers.
  std::optional<ops::NormLayer> norm_layer{};
  /// Its eps, as partial(norm_layer, eps=...). When absent: 0.001 without
  /// norm_layer (the builder's), 1e-5 with it (the layer's own default, as
  /// Python's nn.BatchNorm2d or FrozenBatchNorm2d passed alone).
  std::optional<double> norm_eps{};
};

/// What SSD's backbones are: a module from [N, 3, H, W] images to its
/// feature maps, finest first, with their channels.
class SSDBackbone : public nn::ModuleBase {
 public:
  /// The feature maps of `images`.
  virtual std::vector<Tensor> forward(TensorView images) const = 0;
  FP_MODULE_CALL()

  /// The channels of each map forward() returns.
  std::vector<std::int64_t> out_channels;
};

/// torchvision.models.detection.ssd.SSDScoringHead: one module per map
/// ("module_list.K"), each map's [N, A K, H, W] output as [N, H W A, K].
class SSDScoringHead : public nn::ModuleBase {
 public:
  /// A head of `module_list` (one module per map) giving `num_columns` values per box.
  SSDScoringHead(nn::ModuleList module_list, std::int64_t num_columns);

  FP_MODULE(module_list)
  /// [N, sum over maps of H W A, num_columns] from the maps `x`. fp::Error
  /// (BadArgument) when there are not as many maps as modules.
  Tensor forward(const std::vector<TensorView>& x) const;

  /// The modules, one per map.
  nn::ModuleList module_list;
  /// The values per box (the classes, or 4 box deltas).
  std::int64_t num_columns;
};

/// torchvision's SSDClassificationHead: a 3x3 convolution per map to
/// num_classes logits per box.
class SSDClassificationHead : public SSDScoringHead {
 public:
  /// For maps of `in_channels` with `num_anchors` boxes per position.
  SSDClassificationHead(const std::vector<std::int64_t>& in_channels,
                        const std::vector<std::int64_t>& num_anchors, std::int64_t num_classes);
};

/// torchvision's SSDRegressionHead: a 3x3 convolution per map to 4 box
/// deltas per box.
class SSDRegressionHead : public SSDScoringHead {
 public:
  /// For maps of `in_channels` with `num_anchors` boxes per position.
  SSDRegressionHead(const std::vector<std::int64_t>& in_channels,
                    const std::vector<std::int64_t>& num_anchors);
};

/// SSDHead's outputs for a batch.
struct SSDHeadOutputs {
  /// [N, boxes, 4] deltas.
  Tensor bbox_regression;
  /// [N, boxes, num_classes] logits.
  Tensor cls_logits;
};

/// torchvision.models.detection.ssd.SSDHead (and SSDLiteHead, which has the
/// same structure with other modules).
class SSDHead : public nn::ModuleBase {
 public:
  /// SSDClassificationHead and SSDRegressionHead for these maps.
  SSDHead(const std::vector<std::int64_t>& in_channels,
          const std::vector<std::int64_t>& num_anchors, std::int64_t num_classes);
  /// A head of these two parts.
  SSDHead(SSDScoringHead classification_head, SSDScoringHead regression_head);

  FP_MODULE(classification_head, regression_head)
  /// The deltas and logits of every box of the maps `x`.
  SSDHeadOutputs forward(const std::vector<TensorView>& x) const;

  /// Scores each box.
  SSDScoringHead classification_head;
  /// Moves each box.
  SSDScoringHead regression_head;
};

/// torchvision.models.detection.ssd.SSDFeatureExtractorVGG: VGG's
/// convolutions to conv4_3 (L2-normalised and scaled by `scale_weight`), then
/// conv5 with fc6/fc7 as convolutions and the extra blocks.
class SSDFeatureExtractorVGG : public SSDBackbone {
 public:
  /// Over `backbone` (a VGG's `features`, without batch norm: max pool 3
  /// made ceil_mode here); `highres` adds a sixth extra block (SSD512).
  /// fp::Error (BadArgument) for features without five max pools.
  SSDFeatureExtractorVGG(nn::Sequential backbone, bool highres);

  FP_MODULE(scale_weight, features, extra)
  std::vector<Tensor> forward(TensorView images) const override;

  /// [512] the scale of the normalised conv4_3 (20 at first).
  Tensor scale_weight;
  /// VGG to conv4_3.
  nn::Sequential features;
  /// The blocks after it, each giving one map.
  nn::ModuleList extra;
};

/// torchvision.models.detection.SSD in eval mode.
class SSD : public DetectionModel {
 public:
  /// SSD over `backbone`, with boxes from `anchor_generator`, images resized
  /// to `size` (width, height), and `head` (SSDHead over the backbone's maps
  /// when absent). fp::Error (BadArgument) for fewer than 2 classes, an NMS
  /// threshold outside [0, 1], negative counts, or maps and ratio lists of
  /// different numbers.
  SSD(std::unique_ptr<SSDBackbone> backbone, DefaultBoxGenerator anchor_generator,
      std::pair<std::int64_t, std::int64_t> size, const SSDOptions& options = {},
      std::optional<SSDHead> head = std::nullopt);

  FP_MODULE(backbone, anchor_generator, head)
  std::vector<Detection> forward(const std::vector<TensorView>& images) const override;
  /// torchvision's postprocess_detections: per image, boxes decoded and
  /// clipped, per class those above score_thresh (the best topk_candidates),
  /// then batched NMS and the best detections_per_img.
  std::vector<Detection> postprocess_detections(const SSDHeadOutputs& head_outputs,
                                                const std::vector<Tensor>& image_anchors,
                                                const std::vector<ImageSize>& image_shapes) const;

  /// The feature maps.
  std::unique_ptr<SSDBackbone> backbone;
  /// The default boxes.
  DefaultBoxGenerator anchor_generator;
  /// Scores and moves them.
  SSDHead head;
  /// Normalises and resizes the images to the fixed size.
  GeneralizedRCNNTransform transform;
  /// Decodes the deltas (weights 10, 10, 5, 5).
  BoxCoder box_coder{.weights = {10.0, 10.0, 5.0, 5.0}};
  /// The least class probability kept.
  double score_thresh;
  /// The per-class NMS threshold.
  double nms_thresh;
  /// The most detections per image.
  std::int64_t detections_per_img;
  /// The best boxes per class kept before NMS.
  std::int64_t topk_candidates;

 private:
  /// The same, `options` completed with SSD's defaults and checked.
  SSD(std::unique_ptr<SSDBackbone> backbone, DefaultBoxGenerator anchor_generator,
      std::pair<std::int64_t, std::int64_t> size, const SSDOptions& options,
      std::optional<SSDHead> head, int completed);
};

/// https://pytorch.org/vision/stable/models/generated/torchvision.models.detection.ssd300_vgg16.html
SSD ssd300_vgg16(const SSDOptions& options = {});

}  // namespace fp::vision::models::detection
