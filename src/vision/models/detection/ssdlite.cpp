// torchvision/models/detection/ssdlite.py: the SSDlite heads, the MobileNet
// feature extractor and ssdlite320_mobilenet_v3_large (weights=None,
// weights_backbone=None: MobileNetV3's reduced tail).
#include "flash_powder/vision/models/detection/ssdlite.h"

#include <algorithm>
#include <string>
#include <utility>

#include "flash_powder/base/error.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/vision/models/mobilenetv3.h"
#include "flash_powder/vision/ops/conv_norm_activation.h"
#include "vision/models/backbone_parts.h"

namespace fp::vision::models::detection {
namespace {

[[noreturn]] void refuse_ssdlite(const std::string& message) {
  throw Error(ErrorCode::BadArgument, "fp::vision::models::detection::SSDLite: " + message);
}

/// A Conv2dNormActivation with SSDlite's norm and ReLU6.
ops::Conv2dNormActivation relu6_block(std::int64_t in, std::int64_t out, std::int64_t kernel,
                                      std::int64_t stride, std::int64_t groups,
                                      const SSDLiteNorm& norm) {
  return {in,
          out,
          kernel,
          {.stride = stride,
           .groups = groups,
           .norm_layer = norm.layer,
           .norm_eps = norm.eps,
           .activation_layer = ops::ActivationLayer::ReLU6}};
}

/// torchvision's _prediction_block: depthwise 3x3, then a 1x1 convolution to `out`.
nn::Sequential prediction_block(std::int64_t in, std::int64_t out, const SSDLiteNorm& norm) {
  return nn::Sequential(relu6_block(in, in, 3, 1, in, norm), nn::Conv2d(in, out, 1));
}

/// torchvision's _extra_block: 1x1 to half of `out`, depthwise 3x3 of stride 2, 1x1 to `out`.
nn::Sequential extra_block(std::int64_t in, std::int64_t out, const SSDLiteNorm& norm) {
  const std::int64_t middle = out / 2;
  return nn::Sequential(relu6_block(in, middle, 1, 1, 1, norm),
                        relu6_block(middle, middle, 3, 2, middle, norm),
                        relu6_block(middle, out, 1, 1, 1, norm));
}

nn::ModuleList prediction_blocks(const std::vector<std::int64_t>& in_channels,
                                 const std::vector<std::int64_t>& num_anchors, std::int64_t columns,
                                 const SSDLiteNorm& norm) {
  if (in_channels.size() != num_anchors.size())
    refuse_ssdlite("in_channels and num_anchors should have one entry per map, got " +
                   std::to_string(in_channels.size()) + " and " +
                   std::to_string(num_anchors.size()));
  nn::ModuleList blocks;
  for (std::size_t map = 0; map < in_channels.size(); ++map)
    blocks.push(prediction_block(in_channels[map], columns * num_anchors[map], norm));
  return blocks;
}

/// The output channels of a Conv2dNormActivation-like Sequential (its convolution first).
std::int64_t conv_out_channels(const nn::Sequential& block) {
  return block.at<nn::Conv2d>(0).out_channels;
}

}  // namespace

SSDLiteClassificationHead::SSDLiteClassificationHead(const std::vector<std::int64_t>& in_channels,
                                                     const std::vector<std::int64_t>& num_anchors,
                                                     std::int64_t num_classes,
                                                     const SSDLiteNorm& norm)
    : SSDScoringHead(prediction_blocks(in_channels, num_anchors, num_classes, norm), num_classes) {}

SSDLiteRegressionHead::SSDLiteRegressionHead(const std::vector<std::int64_t>& in_channels,
                                             const std::vector<std::int64_t>& num_anchors,
                                             const SSDLiteNorm& norm)
    : SSDScoringHead(prediction_blocks(in_channels, num_anchors, 4, norm), 4) {}

SSDHead ssdlite_head(const std::vector<std::int64_t>& in_channels,
                     const std::vector<std::int64_t>& num_anchors, std::int64_t num_classes,
                     const SSDLiteNorm& norm) {
  return {SSDLiteClassificationHead(in_channels, num_anchors, num_classes, norm),
          SSDLiteRegressionHead(in_channels, num_anchors, norm)};
}

SSDLiteFeatureExtractorMobileNet::SSDLiteFeatureExtractorMobileNet(nn::Sequential backbone,
                                                                   std::int64_t c4_pos,
                                                                   const SSDLiteNorm& norm,
                                                                   double width_mult,
                                                                   std::int64_t min_depth) {
  auto* c4 = c4_pos >= 0 && c4_pos < static_cast<std::int64_t>(backbone.size())
                 ? dynamic_cast<InvertedResidual*>(&backbone[c4_pos])
                 : nullptr;
  if (c4 == nullptr || c4->use_res_connect || c4->block.size() < 2)
    refuse_ssdlite(
        "backbone[c4_pos] should be an inverted residual block with an expansion and "
        "no residual connection");
  nn::Sequential c4_block = std::move(c4->block);
  nn::Sequential until_expansion;  // from the start until C4's expansion
  for (std::int64_t i = 0; i < c4_pos; ++i)
    until_expansion.push(backbone.take(0));
  until_expansion.push(c4_block.take(0));
  backbone.take(0);        // what is left of C4
  nn::Sequential c4_rest;  // C4 from its depthwise convolution, under its names there
  for (std::int64_t name = 1; c4_block.size() > 0; ++name)
    c4_rest.push(std::to_string(name), c4_block.take(0));
  nn::Sequential from_depthwise;  // from C4's depthwise convolution until the end
  from_depthwise.push(std::move(c4_rest));
  while (backbone.size() > 0)
    from_depthwise.push(backbone.take(0));
  out_channels = {conv_out_channels(until_expansion.at<nn::Sequential>(-1)),
                  conv_out_channels(from_depthwise.at<nn::Sequential>(-1))};
  features.push(std::move(until_expansion));
  features.push(std::move(from_depthwise));

  const auto depth = [&](std::int64_t d) {
    return std::max(min_depth, static_cast<std::int64_t>(static_cast<double>(d) * width_mult));
  };
  const std::vector<std::int64_t> widths{out_channels[1], depth(512), depth(256), depth(256),
                                         depth(128)};
  for (std::size_t i = 0; i + 1 < widths.size(); ++i) {
    extra.push(extra_block(widths[i], widths[i + 1], norm));
    out_channels.push_back(widths[i + 1]);
  }
}

std::vector<Tensor> SSDLiteFeatureExtractorMobileNet::forward(TensorView images) const {
  std::vector<Tensor> output;
  Tensor x = features.at<nn::Sequential>(0)(images);
  output.push_back(x);
  x = features.at<nn::Sequential>(1)(x);
  output.push_back(x);
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(extra.size()); ++i) {
    x = extra.at<nn::Sequential>(i)(x);
    output.push_back(x);
  }
  return output;
}

namespace {

/// The norm `options` ask for: torchvision's `norm_layer` (the layer given
/// alone takes its own default eps, 1e-5; none, the builder's partial).
SSDLiteNorm norm_of(const SSDOptions& options) {
  if (!options.norm_layer) return {.eps = options.norm_eps.value_or(SSDLiteNorm{}.eps)};
  if (*options.norm_layer != ops::NormLayer::BatchNorm2d &&
      *options.norm_layer != ops::NormLayer::FrozenBatchNorm2d)
    refuse_ssdlite("norm_layer should be BatchNorm2d or FrozenBatchNorm2d (MobileNetV3's norms)");
  return {.layer = *options.norm_layer, .eps = options.norm_eps.value_or(1e-5)};
}

}  // namespace

SSD ssdlite320_mobilenet_v3_large(const SSDOptions& options) {
  const SSDLiteNorm norm = norm_of(options);
  MobileNetV3 mobilenet = mobilenet_v3_large({.norm_eps = norm.eps,
                                              .norm_layer = norm.layer,
                                              .width_mult = options.width_mult.value_or(1.0),
                                              .reduced_tail = options.reduced_tail.value_or(true)});
  nn::Sequential features = std::move(mobilenet.features);
  const std::vector<std::int64_t> stages = models::detail::mobilenet_stage_indices(features);
  auto backbone = std::make_unique<SSDLiteFeatureExtractorMobileNet>(
      std::move(features), stages[stages.size() - 2], norm);
  const std::vector<std::int64_t> out_channels = backbone->out_channels;
  DefaultBoxGenerator anchors(std::vector<std::vector<double>>(6, {2, 3}),
                              {.min_ratio = 0.2, .max_ratio = 0.95});
  SSDOptions completed = options;
  completed.num_classes = options.num_classes.value_or(91);
  completed.score_thresh = options.score_thresh.value_or(0.001);
  completed.nms_thresh = options.nms_thresh.value_or(0.55);
  completed.detections_per_img = options.detections_per_img.value_or(300);
  completed.topk_candidates = options.topk_candidates.value_or(300);
  completed.image_mean = options.image_mean.value_or(std::vector<double>{0.5, 0.5, 0.5});
  completed.image_std = options.image_std.value_or(std::vector<double>{0.5, 0.5, 0.5});
  if (*completed.num_classes < 2)
    refuse_ssdlite("num_classes should be at least 2 (the background and one class), got " +
                   std::to_string(*completed.num_classes));
  SSDHead head =
      ssdlite_head(out_channels, anchors.num_anchors_per_location(), *completed.num_classes, norm);
  return SSD(std::move(backbone), std::move(anchors), {320, 320}, completed, std::move(head));
}

}  // namespace fp::vision::models::detection
