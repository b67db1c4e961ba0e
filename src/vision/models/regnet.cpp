// torchvision/models/regnet.py, layer for layer.
#include "flash_powder/vision/models/regnet.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "flash_powder/base/error.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/functional/activation.h"
#include "flash_powder/vision/ops/misc.h"
#include "vision/models/utils.h"

namespace fp::vision::models {
namespace {

using detail::Activation;
using detail::conv_norm_activation;
using detail::make_divisible;

/// torchvision's `[int(x) for x in tensor.tolist()]` of an integral tensor.
std::vector<std::int64_t> integers(const Tensor& values) {
  return values.to_vector<std::int64_t>();
}

/// Python's round() of a float: half to even.
std::int64_t python_round(double value) {
  return static_cast<std::int64_t>(std::nearbyint(value));
}

/// The per-block widths of from_init_params, in torchvision's float32
/// tensor arithmetic: `round(w_0 * w_m ** round(log((arange(depth) * w_a
/// + w_0) / w_0) / log(w_m)) / 8) * 8`.
std::vector<std::int64_t> block_widths(std::int64_t depth, std::int64_t w_0, double w_a,
                                       double w_m) {
  const Tensor widths_cont = arange(depth) * w_a + w_0;
  const Tensor block_capacity = ((widths_cont / w_0).log() / std::log(w_m)).round();
  const Tensor power = full_like(block_capacity, w_m).pow(block_capacity);
  return integers(((w_0 * power) / 8).round() * 8);
}

}  // namespace

BlockParams BlockParams::from_init_params(std::int64_t depth, std::int64_t w_0, double w_a,
                                          double w_m, std::int64_t group_width,
                                          double bottleneck_multiplier,
                                          std::optional<double> se_ratio) {
  if (w_a < 0 || w_0 <= 0 || w_m <= 1 || w_0 % 8 != 0)
    throw Error(ErrorCode::BadArgument, "BlockParams: Invalid RegNet settings");
  BlockParams params;
  params.se_ratio = se_ratio;
  // The stages: runs of equal block widths.
  const std::vector<std::int64_t> widths = block_widths(depth, w_0, w_a, w_m);
  for (std::size_t i = 0; i < widths.size(); ++i) {
    if (i == 0 || widths[i] != widths[i - 1]) {
      params.widths.push_back(widths[i]);
      params.depths.push_back(0);
    }
    ++params.depths.back();
  }
  // _adjust_widths_groups_compatibilty: the bottleneck widths made
  // multiples of the group widths, which are at most the bottleneck widths.
  for (std::int64_t& width : params.widths) {
    const auto bottleneck =
        static_cast<std::int64_t>(static_cast<double>(width) * bottleneck_multiplier);
    const std::int64_t group = std::min(group_width, bottleneck);
    width = static_cast<std::int64_t>(
        static_cast<double>(make_divisible(static_cast<double>(bottleneck), group)) /
        bottleneck_multiplier);
    params.group_widths.push_back(group);
    params.bottleneck_multipliers.push_back(bottleneck_multiplier);
    params.strides.push_back(2);
  }
  return params;
}

ResBottleneckBlock::ResBottleneckBlock(std::int64_t width_in, std::int64_t width_out,
                                       std::int64_t stride, std::int64_t group_width,
                                       double bottleneck_multiplier,
                                       std::optional<double> se_ratio) {
  if (width_in != width_out || stride != 1)
    proj.emplace(conv_norm_activation(width_in, width_out, 1,
                                      {.stride = stride, .activation = Activation::None}));
  // BottleneckTransform.
  const std::int64_t bottleneck =
      python_round(static_cast<double>(width_out) * bottleneck_multiplier);
  const std::int64_t groups = bottleneck / group_width;
  f.push("a", conv_norm_activation(width_in, bottleneck, 1));
  f.push("b",
         conv_norm_activation(bottleneck, bottleneck, 3, {.stride = stride, .groups = groups}));
  if (se_ratio && *se_ratio != 0.0)
    f.push("se", ops::SqueezeExcitation(bottleneck,
                                        python_round(*se_ratio * static_cast<double>(width_in))));
  f.push("c", conv_norm_activation(bottleneck, width_out, 1, {.activation = Activation::None}));
}

void ResBottleneckBlock::visit(nn::Visitor& visitor) {
  if (proj) visitor.child("proj", *proj);
  visitor.child("f", f);
}

Tensor ResBottleneckBlock::forward(TensorView input) const {
  Tensor x = proj ? (*proj)(input) + f(input) : input + f(input);
  return functional::relu(x);
}

RegNet::RegNet(const BlockParams& params, const RegNetOptions& options)
    : stem(conv_norm_activation(3, options.stem_width, 3, {.stride = 2})),
      fc(params.widths.empty() ? options.stem_width : params.widths.back(), options.num_classes) {
  std::int64_t width_in = options.stem_width;
  const std::size_t stages =
      std::min({params.widths.size(), params.strides.size(), params.depths.size(),
                params.group_widths.size(), params.bottleneck_multipliers.size()});
  for (std::size_t s = 0; s < stages; ++s) {
    const std::string stage_name = "block" + std::to_string(s + 1);
    nn::Sequential stage;  // AnyStage
    for (std::int64_t i = 0; i < params.depths[s]; ++i) {
      stage.push(stage_name + "-" + std::to_string(i),
                 ResBottleneckBlock(i == 0 ? width_in : params.widths[s], params.widths[s],
                                    i == 0 ? params.strides[s] : 1, params.group_widths[s],
                                    params.bottleneck_multipliers[s], params.se_ratio));
    }
    trunk_output.push(stage_name, std::move(stage));
    width_in = params.widths[s];
  }
}

void RegNet::visit(nn::Visitor& visitor) {
  visitor.child("stem", stem);
  visitor.child("trunk_output", trunk_output);
  visitor.child("avgpool", avgpool);
  visitor.child("fc", fc);
}

Tensor RegNet::forward(TensorView input) const {
  return fc(avgpool(trunk_output(stem(input))).flatten(1));
}

namespace {

/// A builder's network: torchvision's `from_init_params` arguments.
RegNet regnet(std::int64_t depth, std::int64_t w_0, double w_a, double w_m,
              std::int64_t group_width, std::optional<double> se_ratio,
              const RegNetOptions& options) {
  return RegNet(BlockParams::from_init_params(depth, w_0, w_a, w_m, group_width, 1.0, se_ratio),
                options);
}

}  // namespace

RegNet regnet_y_400mf(const RegNetOptions& options) {
  return regnet(16, 48, 27.89, 2.09, 8, 0.25, options);
}
RegNet regnet_y_800mf(const RegNetOptions& options) {
  return regnet(14, 56, 38.84, 2.4, 16, 0.25, options);
}
RegNet regnet_y_1_6gf(const RegNetOptions& options) {
  return regnet(27, 48, 20.71, 2.65, 24, 0.25, options);
}
RegNet regnet_y_3_2gf(const RegNetOptions& options) {
  return regnet(21, 80, 42.63, 2.66, 24, 0.25, options);
}
RegNet regnet_y_8gf(const RegNetOptions& options) {
  return regnet(17, 192, 76.82, 2.19, 56, 0.25, options);
}
RegNet regnet_y_16gf(const RegNetOptions& options) {
  return regnet(18, 200, 106.23, 2.48, 112, 0.25, options);
}
RegNet regnet_y_32gf(const RegNetOptions& options) {
  return regnet(20, 232, 115.89, 2.53, 232, 0.25, options);
}
RegNet regnet_y_128gf(const RegNetOptions& options) {
  return regnet(27, 456, 160.83, 2.52, 264, 0.25, options);
}
RegNet regnet_x_400mf(const RegNetOptions& options) {
  return regnet(22, 24, 24.48, 2.54, 16, std::nullopt, options);
}
RegNet regnet_x_800mf(const RegNetOptions& options) {
  return regnet(16, 56, 35.73, 2.28, 16, std::nullopt, options);
}
RegNet regnet_x_1_6gf(const RegNetOptions& options) {
  return regnet(18, 80, 34.01, 2.25, 24, std::nullopt, options);
}
RegNet regnet_x_3_2gf(const RegNetOptions& options) {
  return regnet(25, 88, 26.31, 2.25, 48, std::nullopt, options);
}
RegNet regnet_x_8gf(const RegNetOptions& options) {
  return regnet(23, 80, 49.56, 2.88, 120, std::nullopt, options);
}
RegNet regnet_x_16gf(const RegNetOptions& options) {
  return regnet(22, 216, 55.59, 2.1, 128, std::nullopt, options);
}
RegNet regnet_x_32gf(const RegNetOptions& options) {
  return regnet(23, 320, 69.86, 2.0, 168, std::nullopt, options);
}

}  // namespace fp::vision::models
