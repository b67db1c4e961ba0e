// The backbones torchvision's segmentation builders cut out of its
// classifiers (what their _fcn_resnet, _deeplabv3_mobilenetv3, ... share).
#pragma once

#include <cstdint>
#include <memory>
#include <utility>

#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/vision/models/intermediate_layer_getter.h"
#include "flash_powder/vision/models/mobilenetv3.h"
#include "flash_powder/vision/models/resnet.h"
#include "flash_powder/vision/models/segmentation/fcn.h"

namespace fp::vision::models::segmentation::detail {

/// IntermediateLayerGetter(resnet, {"layer4": "out"} + {"layer3": "aux"}
/// when `aux`): the stem and the four stages, without avgpool and fc.
IntermediateLayerGetter resnet_backbone(ResNet net, bool aux);

/// _fcn_resnet and _deeplabv3_resnet: `resnet` dilated in layer3 and layer4,
/// a `Head` on layer4 (2048 channels) and, with aux_loss, an FCNHead on
/// layer3 (1024).
template <class Model, class Head>
Model resnet_segmenter(ResNet (*resnet)(const ResNetOptions&), const SegmentationOptions& options) {
  std::unique_ptr<nn::Module> aux;
  if (options.aux_loss) aux = std::make_unique<FCNHead>(1024, options.num_classes);
  return {resnet_backbone(resnet({.replace_stride_with_dilation = {false, true, true}}),
                          options.aux_loss),
          std::make_unique<Head>(2048, options.num_classes), std::move(aux)};
}

/// Where a MobileNetV3's features are tapped: C2 (output stride 8) and C5.
struct MobileNetStages {
  /// The index of C2 in `features` (torchvision's aux_pos / low_pos).
  std::int64_t low;
  /// Its channels out.
  std::int64_t low_channels;
  /// The index of C5, the last convolution (out_pos / high_pos).
  std::int64_t high;
  /// Its channels out.
  std::int64_t high_channels;
};

/// torchvision's stage_indices of MobileNetV3 `features`.
MobileNetStages mobilenet_stages(const nn::Sequential& features);

}  // namespace fp::vision::models::segmentation::detail
