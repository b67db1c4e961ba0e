// torchvision/models/mobilenetv3.py
// and torchvision.ops.misc's Conv2dNormActivation.
#include "flash_powder/vision/models/mobilenetv3.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "flash_powder/base/error.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/nn/layers/dropout.h"
#include "flash_powder/nn/layers/linear.h"
#include "flash_powder/nn/layers/normalization.h"
#include "vision/models/backbone_parts.h"
#include "vision/models/utils.h"

namespace fp::vision::models {
namespace {

using detail::Activation;
using detail::make_divisible;

/// Conv2dNormActivation with MobileNetV3's BatchNorm (eps 0.001 unless the
/// options say otherwise).
/// The norms of a MobileNetV3: their eps, and whether FrozenBatchNorm2d.
struct MobileNetNorm {
  double eps;
  bool frozen;
};

nn::Sequential conv_norm_activation(std::int64_t in, std::int64_t out, std::int64_t kernel,
                                    std::int64_t stride, std::int64_t groups, Activation activation,
                                    MobileNetNorm norm, std::int64_t dilation = 1) {
  return detail::conv_norm_activation(in, out, kernel,
                                      {.stride = stride,
                                       .groups = groups,
                                       .dilation = dilation,
                                       .eps = norm.eps,
                                       .momentum = 0.01,
                                       .frozen_norm = norm.frozen,
                                       .activation = activation});
}

/// Whether `options` ask for FrozenBatchNorm2d; fp::Error for a norm a
/// MobileNetV3 cannot have.
bool frozen_norm_of(const MobileNetV3Options& options) {
  if (options.norm_layer != ops::NormLayer::BatchNorm2d &&
      options.norm_layer != ops::NormLayer::FrozenBatchNorm2d)
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::MobileNetV3: norm_layer should be BatchNorm2d or "
                "FrozenBatchNorm2d");
  return options.norm_layer == ops::NormLayer::FrozenBatchNorm2d;
}

}  // namespace

InvertedResidual::InvertedResidual(const InvertedResidualConfig& config)
    : use_res_connect(config.stride == 1 && config.input_channels == config.out_channels),
      out_channels(config.out_channels),
      is_cn(config.stride > 1) {
  const Activation activation = config.use_hs ? Activation::Hardswish : Activation::ReLU;
  if (config.expanded_channels != config.input_channels)
    block.push(conv_norm_activation(config.input_channels, config.expanded_channels, 1, 1, 1,
                                    activation, {config.norm_eps, config.frozen_norm}));
  const std::int64_t stride = config.dilation > 1 ? 1 : config.stride;
  block.push(conv_norm_activation(config.expanded_channels, config.expanded_channels, config.kernel,
                                  stride, config.expanded_channels, activation,
                                  {config.norm_eps, config.frozen_norm}, config.dilation));
  if (config.use_se) {
    const std::int64_t quarter = config.expanded_channels / 4;  // torchvision's `// 4`
    block.push(ops::SqueezeExcitation(config.expanded_channels,
                                      make_divisible(static_cast<double>(quarter)),
                                      {.scale_activation = ops::SqueezeActivation::Hardsigmoid}));
  }
  block.push(conv_norm_activation(config.expanded_channels, config.out_channels, 1, 1, 1,
                                  Activation::None, {config.norm_eps, config.frozen_norm}));
}

void InvertedResidual::visit(nn::Visitor& visitor) {
  visitor.child("block", block);
}

Tensor InvertedResidual::forward(TensorView input) const {
  Tensor result = block(input);
  if (use_res_connect) return result + input;
  return result;
}

MobileNetV3::MobileNetV3(const std::vector<InvertedResidualConfig>& setting,
                         std::int64_t last_channel, const MobileNetV3Options& options) {
  features.push(conv_norm_activation(3, setting.front().input_channels, 3, 2, 1,
                                     Activation::Hardswish,
                                     {options.norm_eps, frozen_norm_of(options)}));
  for (InvertedResidualConfig config : setting) {
    config.norm_eps = options.norm_eps;
    config.frozen_norm = frozen_norm_of(options);
    features.push(InvertedResidual(config));
  }
  const std::int64_t last_in = setting.back().out_channels;
  features.push(conv_norm_activation(last_in, 6 * last_in, 1, 1, 1, Activation::Hardswish,
                                     {options.norm_eps, frozen_norm_of(options)}));
  classifier.push(nn::Linear(6 * last_in, last_channel))
      .push(nn::Hardswish())
      .push(nn::Dropout(options.dropout))
      .push(nn::Linear(last_channel, options.num_classes));
}

void MobileNetV3::visit(nn::Visitor& visitor) {
  visitor.child("features", features);
  visitor.child("avgpool", avgpool);
  visitor.child("classifier", classifier);
}

Tensor MobileNetV3::forward(TensorView input) const {
  return classifier(avgpool(features(input)).flatten(1));
}

namespace {

/// torchvision's `dilated`: the last three blocks (C4 on) dilate by 2.
std::vector<InvertedResidualConfig> dilated(std::vector<InvertedResidualConfig> setting,
                                            bool dilate) {
  if (dilate)
    for (auto row = setting.end() - 3; row != setting.end(); ++row)
      row->dilation = 2;
  return setting;
}

/// torchvision's _mobilenet_v3_conf: the last `tail` rows' channels halved
/// when `reduced_tail` (only the C4 row's input kept), then every channel
/// count times width_mult, made divisible by 8.
std::vector<InvertedResidualConfig> configured(std::vector<InvertedResidualConfig> setting,
                                               const MobileNetV3Options& options) {
  constexpr std::size_t kTail = 3;
  if (!(options.width_mult > 0.0))
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::MobileNetV3: width_mult should be positive, got " +
                    std::to_string(options.width_mult));
  if (options.reduced_tail) {
    for (std::size_t row = setting.size() - kTail; row < setting.size(); ++row) {
      if (row != setting.size() - kTail) setting[row].input_channels /= 2;
      setting[row].expanded_channels /= row == setting.size() - kTail ? 1 : 2;
      setting[row].out_channels /= 2;
    }
  }
  const auto adjust = [&](std::int64_t channels) {
    return make_divisible(static_cast<double>(channels) * options.width_mult);
  };
  for (InvertedResidualConfig& row : setting) {
    row.input_channels = adjust(row.input_channels);
    row.expanded_channels = adjust(row.expanded_channels);
    row.out_channels = adjust(row.out_channels);
  }
  return dilated(std::move(setting), options.dilated);
}

/// torchvision's last_channel: adjust_channels(`channels` // reduce_divider).
std::int64_t last_channel_of(std::int64_t channels, const MobileNetV3Options& options) {
  return make_divisible(static_cast<double>(options.reduced_tail ? channels / 2 : channels) *
                        options.width_mult);
}

}  // namespace

MobileNetV3 mobilenet_v3_small(const MobileNetV3Options& options) {
  // torchvision's _mobilenet_v3_conf("mobilenet_v3_small"): input, kernel,
  // expanded, output, SE, hardswish, stride.
  const std::vector<InvertedResidualConfig> setting{
      {16, 3, 16, 16, true, false, 2},  {16, 3, 72, 24, false, false, 2},
      {24, 3, 88, 24, false, false, 1}, {24, 5, 96, 40, true, true, 2},
      {40, 5, 240, 40, true, true, 1},  {40, 5, 240, 40, true, true, 1},
      {40, 5, 120, 48, true, true, 1},  {48, 5, 144, 48, true, true, 1},
      {48, 5, 288, 96, true, true, 2},  {96, 5, 576, 96, true, true, 1},
      {96, 5, 576, 96, true, true, 1},
  };
  return MobileNetV3(configured(setting, options), last_channel_of(1024, options), options);
}

MobileNetV3 mobilenet_v3_large(const MobileNetV3Options& options) {
  // torchvision's _mobilenet_v3_conf("mobilenet_v3_large"), as above.
  const std::vector<InvertedResidualConfig> setting{
      {16, 3, 16, 16, false, false, 1},  {16, 3, 64, 24, false, false, 2},
      {24, 3, 72, 24, false, false, 1},  {24, 5, 72, 40, true, false, 2},
      {40, 5, 120, 40, true, false, 1},  {40, 5, 120, 40, true, false, 1},
      {40, 3, 240, 80, false, true, 2},  {80, 3, 200, 80, false, true, 1},
      {80, 3, 184, 80, false, true, 1},  {80, 3, 184, 80, false, true, 1},
      {80, 3, 480, 112, true, true, 1},  {112, 3, 672, 112, true, true, 1},
      {112, 5, 672, 160, true, true, 2}, {160, 5, 960, 160, true, true, 1},
      {160, 5, 960, 160, true, true, 1},
  };
  return MobileNetV3(configured(setting, options), last_channel_of(1280, options), options);
}

namespace detail {

std::vector<std::int64_t> mobilenet_stage_indices(const nn::Sequential& features) {
  std::vector<std::int64_t> stages{0};
  const auto count = static_cast<std::int64_t>(features.size());
  for (std::int64_t i = 0; i < count; ++i)
    if (const auto* block = dynamic_cast<const InvertedResidual*>(&features[i]);
        block != nullptr && block->is_cn)
      stages.push_back(i);
  stages.push_back(count - 1);
  return stages;
}

}  // namespace detail
}  // namespace fp::vision::models
