// The parts of the classifiers that the segmentation and detection backbones
// cut out of them.
#pragma once

#include <cstdint>
#include <vector>

#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/vision/models/resnet.h"

namespace fp::vision::models::detail {

/// `net`'s children conv1, bn1, relu, maxpool and layer1 .. layer4 under
/// their names (avgpool and fc dropped): what torchvision's
/// IntermediateLayerGetter over a ResNet keeps.
nn::Sequential resnet_trunk(ResNet net);

/// torchvision's stage_indices of MobileNetV3 `features`: the stem (0),
/// every block that strides (`_is_cn`: C1 .. C4) and the last convolution (C5).
std::vector<std::int64_t> mobilenet_stage_indices(const nn::Sequential& features);

}  // namespace fp::vision::models::detail
