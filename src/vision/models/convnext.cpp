// torchvision/models/convnext.py, layer for layer.
#include "flash_powder/vision/models/convnext.h"

#include <string>

#include "flash_powder/base/error.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/layers/flatten.h"
#include "flash_powder/nn/layers/linear.h"

namespace fp::vision::models {

Tensor LayerNorm2d::forward(TensorView input) const {
  return nn::LayerNorm::forward(input.permute({0, 2, 3, 1})).permute({0, 3, 1, 2}).to_owned();
}

CNBlock::CNBlock(std::int64_t dim, double layer_scale, double stochastic_depth_prob)
    : block(nn::Conv2d(dim, dim, 7, {.padding = 3, .groups = dim}), ops::Permute({0, 2, 3, 1}),
            nn::LayerNorm({dim}, {.eps = 1e-6}), nn::Linear(dim, 4 * dim), nn::GELU(),
            nn::Linear(4 * dim, dim), ops::Permute({0, 3, 1, 2})),
      layer_scale(ones({dim, 1, 1}) * layer_scale),
      stochastic_depth(stochastic_depth_prob, "row") {}

void CNBlock::visit(nn::Visitor& visitor) {
  visitor.parameter("layer_scale", layer_scale);
  visitor.child("block", block);
  visitor.child("stochastic_depth", stochastic_depth);
}

Tensor CNBlock::forward(TensorView input) const {
  // Python's order (the stochastic depth between is the identity): the sum
  // keeps the product's memory layout, which the next convolution follows.
  Tensor result = layer_scale * block(input);
  result.add_(input);
  return result;
}

ConvNeXt::ConvNeXt(const std::vector<CNBlockConfig>& block_setting,
                   const ConvNeXtOptions& options) {
  if (block_setting.empty())
    throw Error(ErrorCode::BadArgument, "ConvNeXt: The block_setting should not be empty");
  const std::int64_t first = block_setting.front().input_channels;
  features.push(nn::Sequential(nn::Conv2d(3, first, 4, {.stride = 4}), LayerNorm2d(first)));
  std::int64_t total_blocks = 0;
  for (const CNBlockConfig& config : block_setting)
    total_blocks += config.num_layers;
  if (total_blocks < 2)  // Python's ZeroDivisionError
    throw Error(ErrorCode::BadArgument,
                "ConvNeXt: the block_setting needs 2 blocks or more (torchvision divides the "
                "stochastic depth by the number of blocks - 1), not " +
                    std::to_string(total_blocks));
  const double depth_prob = options.stochastic_depth_prob.value_or(0.0);
  std::int64_t block_id = 0;
  for (const CNBlockConfig& config : block_setting) {
    nn::Sequential stage;
    for (std::int64_t i = 0; i < config.num_layers; ++i, ++block_id) {
      // torchvision's `p * stage_block_id / (total_stage_blocks - 1.0)`.
      const double probability =
          depth_prob * static_cast<double>(block_id) / (static_cast<double>(total_blocks) - 1.0);
      stage.push(CNBlock(config.input_channels, options.layer_scale, probability));
    }
    features.push(std::move(stage));
    if (config.out_channels)
      features.push(nn::Sequential(
          LayerNorm2d(config.input_channels),
          nn::Conv2d(config.input_channels, *config.out_channels, 2, {.stride = 2})));
  }
  const CNBlockConfig& last = block_setting.back();
  const std::int64_t last_channels = last.out_channels.value_or(last.input_channels);
  classifier.push(LayerNorm2d(last_channels))
      .push(nn::Flatten(1))
      .push(nn::Linear(last_channels, options.num_classes));
}

void ConvNeXt::visit(nn::Visitor& visitor) {
  visitor.child("features", features);
  visitor.child("avgpool", avgpool);
  visitor.child("classifier", classifier);
}

Tensor ConvNeXt::forward(TensorView input) const {
  return classifier(avgpool(features(input)));
}

namespace {

/// A builder's network: its setting, with its default stochastic depth.
ConvNeXt convnext(const std::vector<CNBlockConfig>& setting, double stochastic_depth_prob,
                  ConvNeXtOptions options) {
  if (!options.stochastic_depth_prob) options.stochastic_depth_prob = stochastic_depth_prob;
  return ConvNeXt(setting, options);
}

}  // namespace

ConvNeXt convnext_tiny(const ConvNeXtOptions& options) {
  return convnext({{96, 192, 3}, {192, 384, 3}, {384, 768, 9}, {768, std::nullopt, 3}}, 0.1,
                  options);
}

ConvNeXt convnext_small(const ConvNeXtOptions& options) {
  return convnext({{96, 192, 3}, {192, 384, 3}, {384, 768, 27}, {768, std::nullopt, 3}}, 0.4,
                  options);
}

ConvNeXt convnext_base(const ConvNeXtOptions& options) {
  return convnext({{128, 256, 3}, {256, 512, 3}, {512, 1024, 27}, {1024, std::nullopt, 3}}, 0.5,
                  options);
}

ConvNeXt convnext_large(const ConvNeXtOptions& options) {
  return convnext({{192, 384, 3}, {384, 768, 3}, {768, 1536, 27}, {1536, std::nullopt, 3}}, 0.5,
                  options);
}

}  // namespace fp::vision::models
