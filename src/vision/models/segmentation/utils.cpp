// torchvision/models/segmentation/_utils.py, and the backbones its builders
// cut out of ResNet and MobileNetV3 (segmentation/backbones.h).
#include "flash_powder/vision/models/segmentation/utils.h"

#include <utility>
#include <vector>

#include "flash_powder/base/error.h"
#include "flash_powder/functional/vision.h"
#include "flash_powder/nn/layers/conv.h"
#include "vision/models/backbone_parts.h"
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
  std::map<std::string, std::string> return_layers{{"layer4", "out"}};
  if (aux) return_layers.emplace("layer3", "aux");
  return {models::detail::resnet_trunk(std::move(net)), std::move(return_layers)};
}

MobileNetStages mobilenet_stages(const nn::Sequential& features) {
  const std::vector<std::int64_t> stages = models::detail::mobilenet_stage_indices(features);
  const std::int64_t low = stages[stages.size() - 4];
  const std::int64_t high = stages.back();
  return {.low = low,
          .low_channels = features.at<InvertedResidual>(low).out_channels,
          .high = high,
          .high_channels = features.at<nn::Sequential>(high).at<nn::Conv2d>(0).out_channels};
}

}  // namespace detail
}  // namespace fp::vision::models::segmentation
