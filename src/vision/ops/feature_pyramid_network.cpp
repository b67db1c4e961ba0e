// torchvision/ops/feature_pyramid_network.py: FeaturePyramidNetwork,
// LastLevelMaxPool and LastLevelP6P7, op for op.
#include "flash_powder/vision/ops/feature_pyramid_network.h"

#include <string>

#include "box_checks.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/functional/activation.h"
#include "flash_powder/functional/pooling.h"
#include "flash_powder/functional/vision.h"

namespace fp::vision::ops {

void LastLevelMaxPool::visit(nn::Visitor& /*visitor*/) {}

void LastLevelMaxPool::forward(std::vector<Tensor>& results,
                               const std::vector<TensorView>& /*inputs*/,
                               std::vector<std::string>& names) const {
  names.emplace_back("pool");
  results.push_back(functional::max_pool2d(results.back(), 1, {.stride = 2, .padding = 0}));
}

LastLevelP6P7::LastLevelP6P7(std::int64_t in_channels, std::int64_t out_channels)
    : p6(in_channels, out_channels, 3, {.stride = 2, .padding = 1}),
      p7(out_channels, out_channels, 3, {.stride = 2, .padding = 1}),
      use_P5(in_channels == out_channels) {}

void LastLevelP6P7::visit(nn::Visitor& visitor) {
  visitor.child("p6", p6);
  visitor.child("p7", p7);
}

void LastLevelP6P7::forward(std::vector<Tensor>& results, const std::vector<TensorView>& inputs,
                            std::vector<std::string>& names) const {
  Tensor p6_out = p6(use_P5 ? TensorView(results.back()) : inputs.back());
  Tensor p7_out = p7(functional::relu(p6_out));
  results.push_back(std::move(p6_out));
  results.push_back(std::move(p7_out));
  names.emplace_back("p6");
  names.emplace_back("p7");
}

FeaturePyramidNetwork::FeaturePyramidNetwork(const std::vector<std::int64_t>& in_channels_list,
                                             std::int64_t out_channels,
                                             FeaturePyramidNetworkOptions options)
    : extra_blocks(std::move(options.extra_blocks)) {
  if (in_channels_list.empty())
    detail::refuse("FeaturePyramidNetwork", "in_channels_list is empty");
  for (const std::int64_t in_channels : in_channels_list) {
    if (in_channels == 0)
      detail::refuse("FeaturePyramidNetwork", "in_channels=0 is currently not supported");
    const Conv2dNormActivationOptions block{
        .padding = 0, .norm_layer = options.norm_layer, .activation_layer = ActivationLayer::None};
    inner_blocks.emplace(in_channels, out_channels, 1, block);
    layer_blocks.emplace(out_channels, out_channels, 3,
                         Conv2dNormActivationOptions{.norm_layer = options.norm_layer,
                                                     .activation_layer = ActivationLayer::None});
  }
}

void FeaturePyramidNetwork::visit(nn::Visitor& visitor) {
  visitor.child("inner_blocks", inner_blocks);
  visitor.child("layer_blocks", layer_blocks);
  if (auto* p6p7 = std::get_if<LastLevelP6P7>(&extra_blocks)) visitor.child("extra_blocks", *p6p7);
  if (auto* pool = std::get_if<LastLevelMaxPool>(&extra_blocks))
    visitor.child("extra_blocks", *pool);
}

FeatureMaps FeaturePyramidNetwork::forward(const FeatureMaps& x) const {
  const auto levels = static_cast<std::int64_t>(inner_blocks.size());
  if (static_cast<std::int64_t>(x.size()) != levels) {
    detail::refuse("FeaturePyramidNetwork", "got " + std::to_string(x.size()) +
                                                " feature maps for " + std::to_string(levels) +
                                                " levels");
  }
  std::vector<std::string> names;
  std::vector<TensorView> inputs;
  names.reserve(x.size() + 2);
  inputs.reserve(x.size());
  for (const auto& [name, map] : x) {
    names.push_back(name);
    inputs.emplace_back(map);
  }
  Tensor last_inner = inner_blocks[-1](inputs.back());
  std::vector<Tensor> results(static_cast<std::size_t>(levels));
  results.back() = layer_blocks[-1](last_inner);
  for (std::int64_t idx = levels - 2; idx >= 0; --idx) {
    const Tensor inner_lateral = inner_blocks[idx](inputs[static_cast<std::size_t>(idx)]);
    const Tensor inner_top_down = functional::interpolate(
        last_inner, {.size = {inner_lateral.size(-2), inner_lateral.size(-1)}, .mode = "nearest"});
    last_inner = inner_lateral + inner_top_down;
    results[static_cast<std::size_t>(idx)] = layer_blocks[idx](last_inner);
  }
  if (const auto* pool = std::get_if<LastLevelMaxPool>(&extra_blocks))
    pool->forward(results, inputs, names);
  if (const auto* p6p7 = std::get_if<LastLevelP6P7>(&extra_blocks))
    p6p7->forward(results, inputs, names);
  FeatureMaps out;
  out.reserve(results.size());
  for (std::size_t i = 0; i < results.size(); ++i)
    out.emplace_back(names[i], std::move(results[i]));
  return out;
}

}  // namespace fp::vision::ops
