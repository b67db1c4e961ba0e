// torchvision's DeepLabV3 segmentation models (atrous spatial pyramid
// pooling over a dilated ResNet or MobileNetV3-Large), with its state-dict
// keys ("backbone.layer1.0.conv1.weight", "classifier.0.convs.4.1.weight",
// "classifier.0.project.0.weight", "aux_classifier.0.weight").
// https://pytorch.org/vision/stable/models/deeplabv3.html
#pragma once

#include <cstdint>
#include <vector>

#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/module.h"
#include "flash_powder/vision/models/segmentation/utils.h"

namespace fp::vision::models::segmentation {

/// torchvision.models.segmentation.deeplabv3.ASPPConv: a 3x3 convolution of
/// dilation (and padding) `dilation`, BatchNorm and ReLU.
class ASPPConv : public nn::Sequential {
 public:
  /// One atrous branch from `in_channels` to `out_channels`.
  ASPPConv(std::int64_t in_channels, std::int64_t out_channels, std::int64_t dilation);
};

/// torchvision.models.segmentation.deeplabv3.ASPPPooling: global average
/// pooling, 1x1 convolution, BatchNorm, ReLU, upsampled back to the input's size.
class ASPPPooling : public nn::Sequential {
 public:
  /// The image-level branch from `in_channels` to `out_channels`.
  ASPPPooling(std::int64_t in_channels, std::int64_t out_channels);
  Tensor forward(TensorView input) const override;
};

/// torchvision.models.segmentation.deeplabv3.ASPP: a 1x1 branch, one
/// ASPPConv per atrous rate and ASPPPooling (`convs`), concatenated and
/// projected to `out_channels` (`project`: 1x1 convolution, BatchNorm, ReLU, Dropout(0.5)).
class ASPP : public nn::Module {
 public:
  /// The pyramid over `in_channels` features with these atrous rates.
  ASPP(std::int64_t in_channels, const std::vector<std::int64_t>& atrous_rates,
       std::int64_t out_channels = 256);

  void visit(nn::Visitor& visitor) override;
  Tensor forward(TensorView input) const override;

  /// The branches: nn::Sequential, ASPPConv..., ASPPPooling.
  nn::ModuleList convs;
  /// The projection of their concatenation.
  nn::Sequential project;
};

/// torchvision.models.segmentation.deeplabv3.DeepLabHead: ASPP, a 3x3
/// convolution, BatchNorm, ReLU and a 1x1 convolution to `num_classes`.
class DeepLabHead : public nn::Sequential {
 public:
  /// A head from `in_channels` features to `num_classes` scores.
  DeepLabHead(std::int64_t in_channels, std::int64_t num_classes,
              const std::vector<std::int64_t>& atrous_rates = {12, 24, 36});
};

/// torchvision.models.segmentation.DeepLabV3.
class DeepLabV3 : public SimpleSegmentationModel {
 public:
  using SimpleSegmentationModel::SimpleSegmentationModel;
};

/// https://pytorch.org/vision/stable/models/generated/torchvision.models.segmentation.deeplabv3_resnet50.html
DeepLabV3 deeplabv3_resnet50(const SegmentationOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.segmentation.deeplabv3_resnet101.html
DeepLabV3 deeplabv3_resnet101(const SegmentationOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.segmentation.deeplabv3_mobilenet_v3_large.html
DeepLabV3 deeplabv3_mobilenet_v3_large(const SegmentationOptions& options = {});

}  // namespace fp::vision::models::segmentation
