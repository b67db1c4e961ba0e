// torchvision/models/segmentation/deeplabv3.py.
#include "flash_powder/vision/models/segmentation/deeplabv3.h"

#include <memory>
#include <utility>

#include "flash_powder/aten/aten.h"
#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/layers/dropout.h"
#include "flash_powder/nn/layers/normalization.h"
#include "flash_powder/nn/layers/pooling.h"
#include "flash_powder/vision/models/mobilenetv3.h"
#include "flash_powder/vision/models/resnet.h"
#include "flash_powder/vision/models/segmentation/fcn.h"
#include "vision/models/segmentation/backbones.h"

namespace fp::vision::models::segmentation {

ASPPConv::ASPPConv(std::int64_t in_channels, std::int64_t out_channels, std::int64_t dilation) {
  push(nn::Conv2d(in_channels, out_channels, 3,
                  {.padding = dilation, .dilation = dilation, .bias = false}))
      .push(nn::BatchNorm2d(out_channels))
      .push(nn::ReLU());
}

ASPPPooling::ASPPPooling(std::int64_t in_channels, std::int64_t out_channels) {
  push(nn::AdaptiveAvgPool2d({1, 1}))
      .push(nn::Conv2d(in_channels, out_channels, 1, {.bias = false}))
      .push(nn::BatchNorm2d(out_channels))
      .push(nn::ReLU());
}

Tensor ASPPPooling::forward(TensorView input) const {
  return upsample_to(nn::Sequential::forward(input), input.size(-2), input.size(-1));
}

ASPP::ASPP(std::int64_t in_channels, const std::vector<std::int64_t>& atrous_rates,
           std::int64_t out_channels) {
  convs.push(nn::Sequential(nn::Conv2d(in_channels, out_channels, 1, {.bias = false}),
                            nn::BatchNorm2d(out_channels), nn::ReLU()));
  for (const std::int64_t rate : atrous_rates)
    convs.push(ASPPConv(in_channels, out_channels, rate));
  convs.push(ASPPPooling(in_channels, out_channels));
  project
      .push(nn::Conv2d(static_cast<std::int64_t>(convs.size()) * out_channels, out_channels, 1,
                       {.bias = false}))
      .push(nn::BatchNorm2d(out_channels))
      .push(nn::ReLU())
      .push(nn::Dropout(0.5));
}

void ASPP::visit(nn::Visitor& visitor) {
  visitor.child("convs", convs);
  visitor.child("project", project);
}

Tensor ASPP::forward(TensorView input) const {
  std::vector<Tensor> branches;
  for (std::size_t i = 0; i < convs.size(); ++i)
    branches.push_back(convs.at<nn::Module>(static_cast<std::int64_t>(i))(input));
  return project(aten::cat(branches, 1));
}

DeepLabHead::DeepLabHead(std::int64_t in_channels, std::int64_t num_classes,
                         const std::vector<std::int64_t>& atrous_rates) {
  push(ASPP(in_channels, atrous_rates))
      .push(nn::Conv2d(256, 256, 3, {.padding = 1, .bias = false}))
      .push(nn::BatchNorm2d(256))
      .push(nn::ReLU())
      .push(nn::Conv2d(256, num_classes, 1));
}

DeepLabV3 deeplabv3_resnet50(const SegmentationOptions& options) {
  return detail::resnet_segmenter<DeepLabV3, DeepLabHead>(&resnet50, options);
}
DeepLabV3 deeplabv3_resnet101(const SegmentationOptions& options) {
  return detail::resnet_segmenter<DeepLabV3, DeepLabHead>(&resnet101, options);
}

DeepLabV3 deeplabv3_mobilenet_v3_large(const SegmentationOptions& options) {
  // _deeplabv3_mobilenetv3: DeepLabHead on C5, FCNHead on C2 for aux.
  nn::Sequential features = mobilenet_v3_large({.dilated = true}).features;
  const detail::MobileNetStages stages = detail::mobilenet_stages(features);
  std::map<std::string, std::string> return_layers{{std::to_string(stages.high), "out"}};
  std::unique_ptr<nn::Module> aux;
  if (options.aux_loss) {
    return_layers.emplace(std::to_string(stages.low), "aux");
    aux = std::make_unique<FCNHead>(stages.low_channels, options.num_classes);
  }
  return {IntermediateLayerGetter(std::move(features), std::move(return_layers)),
          std::make_unique<DeepLabHead>(stages.high_channels, options.num_classes), std::move(aux)};
}

}  // namespace fp::vision::models::segmentation
