// torchvision/models/detection/backbone_utils.py: BackboneWithFPN,
// _resnet_fpn_extractor and _mobilenet_extractor (fpn=True).
#include "flash_powder/vision/models/detection/backbone_utils.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "flash_powder/base/error.h"
#include "vision/models/backbone_parts.h"

namespace fp::vision::models::detection {
namespace {

[[noreturn]] void refuse_backbone(const std::string& where, const std::string& message) {
  throw Error(ErrorCode::BadArgument, "fp::vision::models::detection::" + where + ": " + message);
}

/// The FPN's output channels of torchvision's extractors.
constexpr std::int64_t kFpnChannels = 256;

/// Digit strings in numeric order ("2" before "10").
bool numerically_before(const std::string& a, const std::string& b) {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

/// The channels out of `features[index]` (a block or the last Conv2dNormActivation).
std::int64_t mobilenet_channels(const nn::Sequential& features, std::int64_t index) {
  if (const auto* block = dynamic_cast<const InvertedResidual*>(&features[index]))
    return block->out_channels;
  return features.at<nn::Sequential>(index).at<nn::Conv2d>(0).out_channels;
}

}  // namespace

BackboneWithFPN::BackboneWithFPN(IntermediateLayerGetter body,
                                 const std::vector<std::int64_t>& in_channels_list,
                                 std::int64_t out_channels,
                                 ops::FeaturePyramidNetworkOptions fpn_options)
    : body(std::move(body)),
      fpn(in_channels_list, out_channels, std::move(fpn_options)),
      out_channels(out_channels) {}

ops::FeatureMaps BackboneWithFPN::forward(TensorView input) const {
  std::map<std::string, Tensor> stages = body(input);
  ops::FeatureMaps ordered;
  for (auto& [name, map] : stages)
    ordered.emplace_back(name, std::move(map));
  std::sort(ordered.begin(), ordered.end(),
            [](const auto& a, const auto& b) { return numerically_before(a.first, b.first); });
  return fpn(ordered);
}

BackboneWithFPN resnet_fpn_backbone(ResNet backbone, const FpnBackboneOptions& options) {
  const std::vector<std::int64_t> returned =
      options.returned_layers.value_or(std::vector<std::int64_t>{1, 2, 3, 4});
  if (returned.empty() || *std::min_element(returned.begin(), returned.end()) <= 0 ||
      *std::max_element(returned.begin(), returned.end()) >= 5)
    refuse_backbone("resnet_fpn_backbone", "each returned layer should be in the range [1,4]");
  // torchvision's backbone.inplanes // 8: the channels of layer4's output, over 8.
  const std::int64_t in_channels_stage2 = backbone.fc.in_features / 8;
  std::map<std::string, std::string> return_layers;
  std::vector<std::int64_t> in_channels_list;
  for (std::size_t v = 0; v < returned.size(); ++v) {
    return_layers.emplace("layer" + std::to_string(returned[v]), std::to_string(v));
    in_channels_list.push_back(in_channels_stage2 << (returned[v] - 1));
  }
  return {IntermediateLayerGetter(models::detail::resnet_trunk(std::move(backbone)),
                                  std::move(return_layers)),
          in_channels_list,
          kFpnChannels,
          {.extra_blocks = options.extra_blocks, .norm_layer = options.norm_layer}};
}

BackboneWithFPN mobilenet_backbone(MobileNetV3 backbone, const FpnBackboneOptions& options) {
  nn::Sequential features = std::move(backbone.features);
  const std::vector<std::int64_t> stage_indices = models::detail::mobilenet_stage_indices(features);
  const auto num_stages = static_cast<std::int64_t>(stage_indices.size());
  const std::vector<std::int64_t> returned =
      options.returned_layers.value_or(std::vector<std::int64_t>{num_stages - 2, num_stages - 1});
  if (returned.empty() || *std::min_element(returned.begin(), returned.end()) < 0 ||
      *std::max_element(returned.begin(), returned.end()) >= num_stages)
    refuse_backbone("mobilenet_backbone", "each returned layer should be in the range [0," +
                                              std::to_string(num_stages - 1) + "]");
  std::map<std::string, std::string> return_layers;
  std::vector<std::int64_t> in_channels_list;
  for (std::size_t v = 0; v < returned.size(); ++v) {
    const std::int64_t index = stage_indices[static_cast<std::size_t>(returned[v])];
    return_layers.emplace(std::to_string(index), std::to_string(v));
    in_channels_list.push_back(mobilenet_channels(features, index));
  }
  return {IntermediateLayerGetter(std::move(features), std::move(return_layers)),
          in_channels_list,
          kFpnChannels,
          {.extra_blocks = options.extra_blocks, .norm_layer = options.norm_layer}};
}

}  // namespace fp::vision::models::detection
