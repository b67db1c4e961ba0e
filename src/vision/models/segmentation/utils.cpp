// torchvision/models/segmentation/_utils.py, and the backbones its builders
// cut out of ResNet and MobileNetV3 (segmentation/backbones.h).
#include "flash_powder/vision/models/segmentation/utils.h"

#include <utility>
#include <vector>

#include "flash_powder/base/error.h"
#include "flash_powder/functional/vision.h"
#include "flash_powder/nn/layers/conv.h"
#include "vision/models/segmentation/backbones.h"

namespace fp::vision::models::segmentation {

Tensor upsample_to(TensorView x, std::int64_t height, std::int64_t width) {
  return functional::interpolate(
      x, {.size = {height, width}, .mode = "bilinear", .align_corners = false});
}

SimpleSegmentationModel::SimpleSegmentationModel(IntermediateLayerGetter backbone,
                                                 std::unique_ptr<nn::Module> classifier,
                                                 std::unique_ptr<nn::Module> aux_classifier)
    : backbone(std::move(backbone)),
      classifier(std::move(classifier)),
      aux_classifier(std::move(aux_classifier)) {
  if (this->classifier == nullptr)
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::segmentation::SimpleSegmentationModel: no classifier");
}

SegmentationOutput SimpleSegmentationModel::forward(TensorView input) const {
  const std::int64_t height = input.size(-2);
  const std::int64_t width = input.size(-1);
  const std::map<std::string, Tensor> features = backbone(input);
  SegmentationOutput result{.out = upsample_to((*classifier)(features.at("out")), height, width)};
  if (aux_classifier)
    result.aux = upsample_to((*aux_classifier)(features.at("aux")), height, width);
  return result;
}

namespace detail {

IntermediateLayerGetter resnet_backbone(ResNet net, bool aux) {
  nn::Sequential children;
  children.push("conv1", std::move(net.conv1))
      .push("bn1", std::move(net.bn1))
      .push("relu", std::move(net.relu))
      .push("maxpool", std::move(net.maxpool))
      .push("layer1", std::move(net.layer1))
      .push("layer2", std::move(net.layer2))
      .push("layer3", std::move(net.layer3))
      .push("layer4", std::move(net.layer4));
  std::map<std::string, std::string> return_layers{{"layer4", "out"}};
  if (aux) return_layers.emplace("layer3", "aux");
  return {std::move(children), std::move(return_layers)};
}

MobileNetStages mobilenet_stages(const nn::Sequential& features) {
  // torchvision's stage_indices: the stem, every block that strides (C1 ..
  // C4) and the last convolution (C5).
  std::vector<std::int64_t> stages{0};
  const auto count = static_cast<std::int64_t>(features.size());
  for (std::int64_t i = 0; i < count; ++i)
    if (const auto* block = dynamic_cast<const InvertedResidual*>(&features[i]);
        block != nullptr && block->is_cn)
      stages.push_back(i);
  stages.push_back(count - 1);
  const std::int64_t low = stages[stages.size() - 4];
  const std::int64_t high = stages.back();
  return {.low = low,
          .low_channels = features.at<InvertedResidual>(low).out_channels,
          .high = high,
          .high_channels = features.at<nn::Sequential>(high).at<nn::Conv2d>(0).out_channels};
}

}  // namespace detail
}  // namespace fp::vision::models::segmentation
