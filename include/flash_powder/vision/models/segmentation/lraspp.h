// torchvision's LRASPP segmentation model (Lite R-ASPP over a dilated
// MobileNetV3-Large), with its state-dict keys ("backbone.0.0.weight",
// "classifier.cbr.0.weight", "classifier.low_classifier.bias").
// https://pytorch.org/vision/stable/models/lraspp.html
#pragma once

#include <cstdint>

#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/module.h"
#include "flash_powder/vision/models/intermediate_layer_getter.h"
#include "flash_powder/vision/models/segmentation/utils.h"

namespace fp::vision::models::segmentation {

/// torchvision.models.segmentation.lraspp.LRASPPHead: the high-level
/// features through `cbr` (1x1 convolution, BatchNorm, ReLU) scaled by
/// `scale` (pooling, 1x1 convolution, sigmoid), upsampled to the low-level
/// features' size; both classified by 1x1 convolutions and added.
class LRASPPHead : public nn::ModuleBase {
 public:
  /// A head over `low_channels` and `high_channels` features.
  LRASPPHead(std::int64_t low_channels, std::int64_t high_channels, std::int64_t num_classes,
             std::int64_t inter_channels);

  FP_MODULE(cbr, scale, low_classifier, high_classifier)
  /// The scores at the low-level features' size.
  Tensor forward(TensorView low, TensorView high) const;

  /// 1x1 convolution, BatchNorm, ReLU on the high-level features.
  nn::Sequential cbr;
  /// Their per-channel attention.
  nn::Sequential scale;
  /// Scores of the low-level features.
  nn::Conv2d low_classifier;
  /// Scores of the attended high-level features.
  nn::Conv2d high_classifier;
};

/// torchvision.models.segmentation.LRASPP: the backbone's "low" and "high"
/// features through LRASPPHead, upsampled to the input's size. No aux.
class LRASPP : public SegmentationModel {
 public:
  /// The network over `backbone` (returning "low" and "high").
  LRASPP(IntermediateLayerGetter backbone, std::int64_t low_channels, std::int64_t high_channels,
         std::int64_t num_classes, std::int64_t inter_channels = 128);

  FP_MODULE(backbone, classifier)
  SegmentationOutput forward(TensorView input) const override;

  /// Returns the features "low" and "high".
  IntermediateLayerGetter backbone;
  /// The head.
  LRASPPHead classifier;
};

/// https://pytorch.org/vision/stable/models/generated/torchvision.models.segmentation.lraspp_mobilenet_v3_large.html
/// fp::Error for aux_loss, as torchvision ("does not use auxiliary loss").
LRASPP lraspp_mobilenet_v3_large(const SegmentationOptions& options = {});

}  // namespace fp::vision::models::segmentation
