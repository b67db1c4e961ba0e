// torchvision/models/segmentation/fcn.py.
#include "flash_powder/vision/models/segmentation/fcn.h"

#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/layers/dropout.h"
#include "flash_powder/nn/layers/normalization.h"
#include "flash_powder/vision/models/resnet.h"
#include "vision/models/segmentation/backbones.h"

namespace fp::vision::models::segmentation {

FCNHead::FCNHead(std::int64_t in_channels, std::int64_t channels) {
  const std::int64_t inter_channels = in_channels / 4;
  push(nn::Conv2d(in_channels, inter_channels, 3, {.padding = 1, .bias = false}))
      .push(nn::BatchNorm2d(inter_channels))
      .push(nn::ReLU())
      .push(nn::Dropout(0.1))
      .push(nn::Conv2d(inter_channels, channels, 1));
}

FCN fcn_resnet50(const SegmentationOptions& options) {
  return detail::resnet_segmenter<FCN, FCNHead>(&resnet50, options);
}
FCN fcn_resnet101(const SegmentationOptions& options) {
  return detail::resnet_segmenter<FCN, FCNHead>(&resnet101, options);
}

}  // namespace fp::vision::models::segmentation
