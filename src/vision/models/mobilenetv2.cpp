// torchvision/models/mobilenetv2.py and torchvision.ops.misc's
// Conv2dNormActivation (BatchNorm with PyTorch's defaults, ReLU6).
#include "flash_powder/vision/models/mobilenetv2.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "flash_powder/aten/aten.h"
#include "flash_powder/base/error.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/layers/dropout.h"
#include "flash_powder/nn/layers/linear.h"
#include "flash_powder/nn/layers/normalization.h"
#include "vision/models/utils.h"

namespace fp::vision::models {
namespace {

using detail::make_divisible;

/// torchvision.ops.Conv2dNormActivation(..., activation_layer=nn.ReLU6):
/// keys "0" (conv, no bias), "1" (norm).
nn::Sequential conv_bn_relu6(std::int64_t in, std::int64_t out, std::int64_t kernel,
                             std::int64_t stride = 1, std::int64_t groups = 1) {
  return nn::Sequential(
      nn::Conv2d(in, out, kernel,
                 {.stride = stride, .padding = (kernel - 1) / 2, .groups = groups, .bias = false}),
      nn::BatchNorm2d(out), nn::ReLU6());
}

/// One row of torchvision's inverted_residual_setting: expansion t, output
/// channels c, repeats n, first stride s.
struct Stage {
  std::int64_t t, c, n, s;
};
constexpr std::array<Stage, 7> kSetting{{{1, 16, 1, 1},
                                         {6, 24, 2, 2},
                                         {6, 32, 3, 2},
                                         {6, 64, 4, 2},
                                         {6, 96, 3, 1},
                                         {6, 160, 3, 2},
                                         {6, 320, 1, 1}}};

}  // namespace

InvertedResidualV2::InvertedResidualV2(std::int64_t inp, std::int64_t oup, std::int64_t stride,
                                       std::int64_t expand_ratio)
    : use_res_connect(stride == 1 && inp == oup) {
  if (stride != 1 && stride != 2)
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::InvertedResidualV2: stride should be 1 or 2, not " +
                    std::to_string(stride));
  // Python's int(round(inp * expand_ratio)) of an integer ratio.
  const std::int64_t hidden = inp * expand_ratio;
  if (expand_ratio != 1) conv.push(conv_bn_relu6(inp, hidden, 1));
  conv.push(conv_bn_relu6(hidden, hidden, 3, stride, hidden))
      .push(nn::Conv2d(hidden, oup, 1, {.bias = false}))
      .push(nn::BatchNorm2d(oup));
}

void InvertedResidualV2::visit(nn::Visitor& visitor) {
  visitor.child("conv", conv);
}

Tensor InvertedResidualV2::forward(TensorView input) const {
  Tensor result = conv(input);
  if (use_res_connect) return result + input;
  return result;
}

MobileNetV2::MobileNetV2(const MobileNetV2Options& options) {
  if (!(options.width_mult > 0.0))
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::mobilenet_v2: width_mult should be positive, not " +
                    std::to_string(options.width_mult));
  if (options.round_nearest < 1)
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::mobilenet_v2: round_nearest should be positive, not " +
                    std::to_string(options.round_nearest));
  const double width = options.width_mult;
  std::int64_t input_channel = make_divisible(32 * width, options.round_nearest);
  const std::int64_t last_channel =
      make_divisible(1280 * std::max(1.0, width), options.round_nearest);
  features.push(conv_bn_relu6(3, input_channel, 3, 2));
  for (const Stage& stage : kSetting) {
    const std::int64_t output_channel =
        make_divisible(static_cast<double>(stage.c) * width, options.round_nearest);
    for (std::int64_t i = 0; i < stage.n; ++i) {
      features.push(
          InvertedResidualV2(input_channel, output_channel, i == 0 ? stage.s : 1, stage.t));
      input_channel = output_channel;
    }
  }
  features.push(conv_bn_relu6(input_channel, last_channel, 1));
  classifier.push(nn::Dropout(options.dropout)).push(nn::Linear(last_channel, options.num_classes));
}

void MobileNetV2::visit(nn::Visitor& visitor) {
  visitor.child("features", features);
  visitor.child("classifier", classifier);
}

Tensor MobileNetV2::forward(TensorView input) const {
  const Tensor pooled = aten::adaptive_avg_pool2d(features(input), {1, 1});
  return classifier(pooled.flatten(1));
}

MobileNetV2 mobilenet_v2(const MobileNetV2Options& options) {
  return MobileNetV2(options);
}

}  // namespace fp::vision::models
