// torchvision/models/segmentation/lraspp.py.
#include "flash_powder/vision/models/segmentation/lraspp.h"

#include <string>
#include <utility>

#include "flash_powder/base/error.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/nn/layers/normalization.h"
#include "flash_powder/nn/layers/pooling.h"
#include "flash_powder/vision/models/mobilenetv3.h"
#include "vision/models/segmentation/backbones.h"

namespace fp::vision::models::segmentation {

LRASPPHead::LRASPPHead(std::int64_t low_channels, std::int64_t high_channels,
                       std::int64_t num_classes, std::int64_t inter_channels)
    : cbr(nn::Conv2d(high_channels, inter_channels, 1, {.bias = false}),
          nn::BatchNorm2d(inter_channels), nn::ReLU()),
      scale(nn::AdaptiveAvgPool2d({1, 1}),
            nn::Conv2d(high_channels, inter_channels, 1, {.bias = false}), nn::Sigmoid()),
      low_classifier(low_channels, num_classes, 1),
      high_classifier(inter_channels, num_classes, 1) {}

Tensor LRASPPHead::forward(TensorView low, TensorView high) const {
  Tensor x = cbr(high);
  x = x * scale(high);
  x = upsample_to(x, low.size(-2), low.size(-1));
  return low_classifier(low) + high_classifier(x);
}

LRASPP::LRASPP(IntermediateLayerGetter backbone, std::int64_t low_channels,
               std::int64_t high_channels, std::int64_t num_classes, std::int64_t inter_channels)
    : backbone(std::move(backbone)),
      classifier(low_channels, high_channels, num_classes, inter_channels) {}

SegmentationOutput LRASPP::forward(TensorView input) const {
  const std::map<std::string, Tensor> features = backbone(input);
  return {.out = upsample_to(classifier(features.at("low"), features.at("high")), input.size(-2),
                             input.size(-1))};
}

LRASPP lraspp_mobilenet_v3_large(const SegmentationOptions& options) {
  if (options.aux_loss)
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::segmentation::lraspp_mobilenet_v3_large: This model does not "
                "use auxiliary loss (aux_loss must be false)");
  // _lraspp_mobilenetv3: C2 as "low", C5 as "high".
  nn::Sequential features = mobilenet_v3_large({.dilated = true}).features;
  const detail::MobileNetStages stages = detail::mobilenet_stages(features);
  return {IntermediateLayerGetter(std::move(features), {{std::to_string(stages.low), "low"},
                                                        {std::to_string(stages.high), "high"}}),
          stages.low_channels, stages.high_channels, options.num_classes};
}

}  // namespace fp::vision::models::segmentation
