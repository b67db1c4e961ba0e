// torchvision/models/efficientnet.py, layer for layer.
#include "flash_powder/vision/models/efficientnet.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "flash_powder/base/error.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/nn/layers/dropout.h"
#include "flash_powder/nn/layers/linear.h"
#include "vision/models/utils.h"

namespace fp::vision::models {
namespace {

using detail::Activation;
using detail::conv_norm_activation;
using detail::make_divisible;

/// Conv2dNormActivation with the network's BatchNorm and SiLU (or none).
nn::Sequential conv_bn(std::int64_t in, std::int64_t out, std::int64_t kernel, double eps,
                       std::int64_t stride = 1, std::int64_t groups = 1,
                       Activation activation = Activation::SiLU) {
  return conv_norm_activation(
      in, out, kernel, {.stride = stride, .groups = groups, .eps = eps, .activation = activation});
}

}  // namespace

MBConvConfig MBConvConfig::scaled(double expand_ratio, std::int64_t kernel, std::int64_t stride,
                                  std::int64_t input_channels, std::int64_t out_channels,
                                  std::int64_t num_layers, double width_mult, double depth_mult) {
  // adjust_channels and adjust_depth: `_make_divisible(channels * width_mult, 8)`,
  // `int(math.ceil(num_layers * depth_mult))`.
  return {expand_ratio,
          kernel,
          stride,
          make_divisible(static_cast<double>(input_channels) * width_mult),
          make_divisible(static_cast<double>(out_channels) * width_mult),
          static_cast<std::int64_t>(std::ceil(static_cast<double>(num_layers) * depth_mult))};
}

MBConv::MBConv(const MBConvConfig& config, double stochastic_depth_prob, double norm_eps)
    : stochastic_depth(stochastic_depth_prob, "row"),
      use_res_connect(config.stride == 1 && config.input_channels == config.out_channels) {
  if (config.stride < 1 || config.stride > 2)
    throw Error(ErrorCode::BadArgument, std::string(config.fused ? "FusedMBConv" : "MBConv") +
                                            ": illegal stride value " +
                                            std::to_string(config.stride));
  const std::int64_t in = config.input_channels;
  const std::int64_t out = config.out_channels;
  const std::int64_t expanded =
      make_divisible(static_cast<double>(in) * config.expand_ratio);  // adjust_channels
  if (config.fused) {
    if (expanded != in) {
      block.push(conv_bn(in, expanded, config.kernel, norm_eps, config.stride));
      block.push(conv_bn(expanded, out, 1, norm_eps, 1, 1, Activation::None));
    } else {
      block.push(conv_bn(in, out, config.kernel, norm_eps, config.stride));
    }
    return;
  }
  if (expanded != in) block.push(conv_bn(in, expanded, 1, norm_eps));
  block.push(conv_bn(expanded, expanded, config.kernel, norm_eps, config.stride, expanded));
  block.push(ops::SqueezeExcitation(expanded, std::max<std::int64_t>(1, in / 4),
                                    {.activation = ops::SqueezeActivation::SiLU}));
  block.push(conv_bn(expanded, out, 1, norm_eps, 1, 1, Activation::None));
}

void MBConv::visit(nn::Visitor& visitor) {
  visitor.child("block", block);
  visitor.child("stochastic_depth", stochastic_depth);
}

Tensor MBConv::forward(TensorView input) const {
  Tensor result = block(input);
  if (use_res_connect) result.add_(input);
  return result;
}

EfficientNet::EfficientNet(const std::vector<MBConvConfig>& setting, double dropout,
                           double stochastic_depth_prob, std::int64_t num_classes, double norm_eps,
                           std::optional<std::int64_t> last_channel) {
  if (setting.empty())
    throw Error(ErrorCode::BadArgument,
                "EfficientNet: The inverted_residual_setting should not be empty");
  features.push(conv_bn(3, setting.front().input_channels, 3, norm_eps, 2));
  std::int64_t total_blocks = 0;
  for (const MBConvConfig& config : setting)
    total_blocks += config.num_layers;
  std::int64_t block_id = 0;
  for (const MBConvConfig& config : setting) {
    nn::Sequential stage;
    for (std::int64_t i = 0; i < config.num_layers; ++i, ++block_id) {
      MBConvConfig block = config;
      if (i > 0) {  // the stage's later blocks keep its width and size
        block.input_channels = block.out_channels;
        block.stride = 1;
      }
      const double probability =
          stochastic_depth_prob * static_cast<double>(block_id) / static_cast<double>(total_blocks);
      stage.push(MBConv(block, probability, norm_eps));
    }
    features.push(std::move(stage));
  }
  const std::int64_t last_in = setting.back().out_channels;
  const std::int64_t last_out = last_channel.value_or(4 * last_in);
  features.push(conv_bn(last_in, last_out, 1, norm_eps));
  classifier.push(nn::Dropout(dropout)).push(nn::Linear(last_out, num_classes));
}

void EfficientNet::visit(nn::Visitor& visitor) {
  visitor.child("features", features);
  visitor.child("avgpool", avgpool);
  visitor.child("classifier", classifier);
}

Tensor EfficientNet::forward(TensorView input) const {
  return classifier(avgpool(features(input)).flatten(1));
}

namespace {

/// efficientnet_b*: torchvision's B0 setting scaled, BatchNorm's eps 1e-5
/// (B0-B4) or 0.001 (B5-B7).
EfficientNet efficientnet_v1(double width_mult, double depth_mult, double dropout, double eps,
                             const EfficientNetOptions& options) {
  const auto row = [&](double expand, std::int64_t kernel, std::int64_t stride, std::int64_t in,
                       std::int64_t out, std::int64_t layers) {
    return MBConvConfig::scaled(expand, kernel, stride, in, out, layers, width_mult, depth_mult);
  };
  const std::vector<MBConvConfig> setting{
      row(1, 3, 1, 32, 16, 1),   row(6, 3, 2, 16, 24, 2),  row(6, 5, 2, 24, 40, 2),
      row(6, 3, 2, 40, 80, 3),   row(6, 5, 1, 80, 112, 3), row(6, 5, 2, 112, 192, 4),
      row(6, 3, 1, 192, 320, 1),
  };
  return EfficientNet(setting, options.dropout.value_or(dropout), options.stochastic_depth_prob,
                      options.num_classes, eps);
}

/// efficientnet_v2_*: a setting, last channel 1280, BatchNorm's eps 0.001.
EfficientNet efficientnet_v2(const std::vector<MBConvConfig>& setting, double dropout,
                             const EfficientNetOptions& options) {
  return EfficientNet(setting, options.dropout.value_or(dropout), options.stochastic_depth_prob,
                      options.num_classes, 1e-3, 1280);
}

/// A FusedMBConvConfig row.
MBConvConfig fused(double expand, std::int64_t kernel, std::int64_t stride, std::int64_t in,
                   std::int64_t out, std::int64_t layers) {
  return {expand, kernel, stride, in, out, layers, true};
}

/// An MBConvConfig row, unscaled.
MBConvConfig plain(double expand, std::int64_t kernel, std::int64_t stride, std::int64_t in,
                   std::int64_t out, std::int64_t layers) {
  return {expand, kernel, stride, in, out, layers};
}

}  // namespace

// torchvision's width and depth multipliers, dropout, and BatchNorm eps.
EfficientNet efficientnet_b0(const EfficientNetOptions& options) {
  return efficientnet_v1(1.0, 1.0, 0.2, 1e-5, options);
}
EfficientNet efficientnet_b1(const EfficientNetOptions& options) {
  return efficientnet_v1(1.0, 1.1, 0.2, 1e-5, options);
}
EfficientNet efficientnet_b2(const EfficientNetOptions& options) {
  return efficientnet_v1(1.1, 1.2, 0.3, 1e-5, options);
}
EfficientNet efficientnet_b3(const EfficientNetOptions& options) {
  return efficientnet_v1(1.2, 1.4, 0.3, 1e-5, options);
}
EfficientNet efficientnet_b4(const EfficientNetOptions& options) {
  return efficientnet_v1(1.4, 1.8, 0.4, 1e-5, options);
}
EfficientNet efficientnet_b5(const EfficientNetOptions& options) {
  return efficientnet_v1(1.6, 2.2, 0.4, 1e-3, options);
}
EfficientNet efficientnet_b6(const EfficientNetOptions& options) {
  return efficientnet_v1(1.8, 2.6, 0.5, 1e-3, options);
}
EfficientNet efficientnet_b7(const EfficientNetOptions& options) {
  return efficientnet_v1(2.0, 3.1, 0.5, 1e-3, options);
}

EfficientNet efficientnet_v2_s(const EfficientNetOptions& options) {
  return efficientnet_v2(
      {fused(1, 3, 1, 24, 24, 2), fused(4, 3, 2, 24, 48, 4), fused(4, 3, 2, 48, 64, 4),
       plain(4, 3, 2, 64, 128, 6), plain(6, 3, 1, 128, 160, 9), plain(6, 3, 2, 160, 256, 15)},
      0.2, options);
}

EfficientNet efficientnet_v2_m(const EfficientNetOptions& options) {
  return efficientnet_v2(
      {fused(1, 3, 1, 24, 24, 3), fused(4, 3, 2, 24, 48, 5), fused(4, 3, 2, 48, 80, 5),
       plain(4, 3, 2, 80, 160, 7), plain(6, 3, 1, 160, 176, 14), plain(6, 3, 2, 176, 304, 18),
       plain(6, 3, 1, 304, 512, 5)},
      0.3, options);
}

EfficientNet efficientnet_v2_l(const EfficientNetOptions& options) {
  return efficientnet_v2(
      {fused(1, 3, 1, 32, 32, 4), fused(4, 3, 2, 32, 64, 7), fused(4, 3, 2, 64, 96, 7),
       plain(4, 3, 2, 96, 192, 10), plain(6, 3, 1, 192, 224, 19), plain(6, 3, 2, 224, 384, 25),
       plain(6, 3, 1, 384, 640, 7)},
      0.4, options);
}

}  // namespace fp::vision::models
