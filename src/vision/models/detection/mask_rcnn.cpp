// torchvision/models/detection/mask_rcnn.py: the mask heads, MaskRCNN and
// its builder (weights=None, weights_backbone=None).
#include "flash_powder/vision/models/detection/mask_rcnn.h"

#include <memory>
#include <utility>

#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/vision/models/resnet.h"

namespace fp::vision::models::detection {

MaskRCNNHeads::MaskRCNNHeads(std::int64_t in_channels, const std::vector<std::int64_t>& layers,
                             std::int64_t dilation, ops::NormLayer norm_layer) {
  std::int64_t next_feature = in_channels;
  for (const std::int64_t features : layers) {
    push(ops::Conv2dNormActivation(
        next_feature, features, 3,
        {.padding = dilation, .norm_layer = norm_layer, .dilation = dilation}));
    next_feature = features;
  }
}

MaskRCNNPredictor::MaskRCNNPredictor(std::int64_t in_channels, std::int64_t dim_reduced,
                                     std::int64_t num_classes) {
  push("conv5_mask", nn::ConvTranspose2d(in_channels, dim_reduced, 2, {.stride = 2}))
      .push("relu", nn::ReLU())
      .push("mask_fcn_logits", nn::Conv2d(dim_reduced, num_classes, 1));
}

MaskRCNN::MaskRCNN(BackboneWithFPN backbone, const FasterRCNNOptions& options)
    : MaskRCNN(std::move(backbone), options, {}, nullptr) {}

MaskRCNN::MaskRCNN(BackboneWithFPN backbone, const FasterRCNNOptions& options,
                   FasterRCNNParts parts, std::unique_ptr<nn::Module> mask_head)
    : FasterRCNN(std::move(backbone), options, std::move(parts)) {
  constexpr std::int64_t kMaskLayers = 256;
  const std::int64_t out_channels = this->backbone.out_channels;
  roi_heads.mask_roi_pool = ops::MultiScaleRoIAlign({"0", "1", "2", "3"}, 14, 2);
  roi_heads.mask_head = mask_head ? std::move(mask_head)
                                  : std::make_unique<MaskRCNNHeads>(
                                        out_channels, std::vector<std::int64_t>(4, kMaskLayers), 1);
  roi_heads.mask_predictor = std::make_unique<MaskRCNNPredictor>(
      kMaskLayers, kMaskLayers, roi_heads.box_predictor.cls_score.out_features);
}

MaskRCNN maskrcnn_resnet50_fpn(const FasterRCNNOptions& options) {
  return MaskRCNN(resnet_fpn_backbone(detail::detection_resnet50(options)), options);
}

MaskRCNN maskrcnn_resnet50_fpn_v2(const FasterRCNNOptions& options) {
  constexpr std::int64_t kMaskLayers = 256;
  BackboneWithFPN backbone = detail::detection_resnet50_fpn_v2(options, "maskrcnn_resnet50_fpn_v2");
  const std::int64_t out_channels = backbone.out_channels;
  FasterRCNNParts parts = fasterrcnn_v2_parts(out_channels);
  return MaskRCNN(
      std::move(backbone), options, std::move(parts),
      std::make_unique<MaskRCNNHeads>(out_channels, std::vector<std::int64_t>(4, kMaskLayers), 1,
                                      ops::NormLayer::BatchNorm2d));
}

}  // namespace fp::vision::models::detection
