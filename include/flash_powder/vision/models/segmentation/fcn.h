// torchvision's FCN segmentation models (Fully Convolutional Networks) over a
// dilated ResNet, with its state-dict keys ("backbone.layer4.2.conv2.weight",
// "classifier.0.weight", "aux_classifier.4.bias").
// https://pytorch.org/vision/stable/models/fcn.html
#pragma once

#include <cstdint>

#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/vision/models/segmentation/utils.h"

namespace fp::vision::models::segmentation {

/// torchvision.models.segmentation.fcn.FCNHead: 3x3 convolution to a quarter
/// of the channels, BatchNorm, ReLU, Dropout(0.1), 1x1 convolution to `channels`.
class FCNHead : public nn::Sequential {
 public:
  /// A head from `in_channels` features to `channels` scores.
  FCNHead(std::int64_t in_channels, std::int64_t channels);
};

/// torchvision.models.segmentation.FCN.
class FCN : public SimpleSegmentationModel {
 public:
  using SimpleSegmentationModel::SimpleSegmentationModel;
};

/// https://pytorch.org/vision/stable/models/generated/torchvision.models.segmentation.fcn_resnet50.html
FCN fcn_resnet50(const SegmentationOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.segmentation.fcn_resnet101.html
FCN fcn_resnet101(const SegmentationOptions& options = {});

}  // namespace fp::vision::models::segmentation
