// torchvision/models/detection/ssd.py: SSD in eval mode, its heads, the VGG
// feature extractor and ssd300_vgg16 (weights=None, weights_backbone=None).
#include "flash_powder/vision/models/detection/ssd.h"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "flash_powder/aten/aten.h"
#include "flash_powder/base/error.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/functions.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/functional/activation.h"
#include "flash_powder/functional/normalization.h"
#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/layers/pooling.h"
#include "flash_powder/vision/models/vgg.h"
#include "flash_powder/vision/ops/boxes.h"
#include "flash_powder/vision/ops/nms.h"

namespace fp::vision::models::detection {
namespace {

[[noreturn]] void refuse_ssd(const std::string& where, const std::string& message) {
  throw Error(ErrorCode::BadArgument, "fp::vision::models::detection::" + where + ": " + message);
}

/// Rows `index` ([K] int64) of `values`.
Tensor ssd_rows(TensorView values, TensorView index) {
  return aten::index_select(values, 0, index);
}

/// One 3x3 convolution (padding 1) per map, to `columns` values per box.
nn::ModuleList ssd_convolutions(const std::vector<std::int64_t>& in_channels,
                                const std::vector<std::int64_t>& num_anchors,
                                std::int64_t columns) {
  if (in_channels.size() != num_anchors.size())
    refuse_ssd("SSDHead", "in_channels and num_anchors should have one entry per map, got " +
                              std::to_string(in_channels.size()) + " and " +
                              std::to_string(num_anchors.size()));
  nn::ModuleList convolutions;
  for (std::size_t map = 0; map < in_channels.size(); ++map)
    convolutions.push(nn::Conv2d(in_channels[map], columns * num_anchors[map], 3, {.padding = 1}));
  return convolutions;
}

/// A 1x1 convolution then a 3x3 one, each with ReLU: one of the extra blocks.
nn::Sequential vgg_extra_block(std::int64_t in, std::int64_t middle, std::int64_t out,
                               std::int64_t kernel, const nn::Conv2dOptions& options) {
  return nn::Sequential(nn::Conv2d(in, middle, 1), nn::ReLU(),
                        nn::Conv2d(middle, out, kernel, options), nn::ReLU());
}

/// The positions of `features`' max pools.
std::vector<std::int64_t> max_pool_positions(const nn::Sequential& features) {
  std::vector<std::int64_t> positions;
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(features.size()); ++i)
    if (dynamic_cast<const nn::MaxPool2d*>(&features[i]) != nullptr) positions.push_back(i);
  return positions;
}

/// fc6 (dilated 3x3) and fc7 (1x1) as convolutions, after a 3x3 max pool of stride 1.
nn::Sequential vgg_fc() {
  return nn::Sequential(nn::MaxPool2d(3, {.stride = 1, .padding = 1}),
                        nn::Conv2d(512, 1024, 3, {.padding = 6, .dilation = 6}), nn::ReLU(),
                        nn::Conv2d(1024, 1024, 1), nn::ReLU());
}

/// The options with SSD's own defaults for those left empty.
SSDOptions with_ssd_defaults(SSDOptions options) {
  options.num_classes = options.num_classes.value_or(91);
  options.image_mean = options.image_mean.value_or(std::vector<double>{0.485, 0.456, 0.406});
  options.image_std = options.image_std.value_or(std::vector<double>{0.229, 0.224, 0.225});
  options.score_thresh = options.score_thresh.value_or(0.01);
  options.nms_thresh = options.nms_thresh.value_or(0.45);
  options.detections_per_img = options.detections_per_img.value_or(200);
  options.topk_candidates = options.topk_candidates.value_or(400);
  if (*options.num_classes < 2)
    refuse_ssd("SSD", "num_classes should be at least 2 (the background and one class), got " +
                          std::to_string(*options.num_classes));
  if (!(*options.nms_thresh >= 0.0 && *options.nms_thresh <= 1.0))
    refuse_ssd("SSD", "nms_thresh should be in [0, 1], got " + std::to_string(*options.nms_thresh));
  if (*options.detections_per_img < 0 || *options.topk_candidates < 0)
    refuse_ssd("SSD", "detections_per_img and topk_candidates should not be negative");
  return options;
}

}  // namespace

SSDScoringHead::SSDScoringHead(nn::ModuleList module_list, std::int64_t num_columns)
    : module_list(std::move(module_list)), num_columns(num_columns) {}

Tensor SSDScoringHead::forward(const std::vector<TensorView>& x) const {
  if (x.size() != module_list.size())
    refuse_ssd("SSDScoringHead", "expected " + std::to_string(module_list.size()) +
                                     " feature maps, got " + std::to_string(x.size()));
  std::vector<Tensor> all_results;
  all_results.reserve(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const Tensor results = module_list.at<nn::Module>(static_cast<std::int64_t>(i))(x[i]);
    const std::int64_t n = results.size(0);
    const std::int64_t height = results.size(2);
    const std::int64_t width = results.size(3);
    all_results.push_back(results.view({n, -1, num_columns, height, width})
                              .permute({0, 3, 4, 1, 2})
                              .reshape({n, -1, num_columns}));
  }
  return fp::cat(all_results, 1);
}

SSDClassificationHead::SSDClassificationHead(const std::vector<std::int64_t>& in_channels,
                                             const std::vector<std::int64_t>& num_anchors,
                                             std::int64_t num_classes)
    : SSDScoringHead(ssd_convolutions(in_channels, num_anchors, num_classes), num_classes) {}

SSDRegressionHead::SSDRegressionHead(const std::vector<std::int64_t>& in_channels,
                                     const std::vector<std::int64_t>& num_anchors)
    : SSDScoringHead(ssd_convolutions(in_channels, num_anchors, 4), 4) {}

SSDHead::SSDHead(const std::vector<std::int64_t>& in_channels,
                 const std::vector<std::int64_t>& num_anchors, std::int64_t num_classes)
    : classification_head(SSDClassificationHead(in_channels, num_anchors, num_classes)),
      regression_head(SSDRegressionHead(in_channels, num_anchors)) {}

SSDHead::SSDHead(SSDScoringHead classification_head, SSDScoringHead regression_head)
    : classification_head(std::move(classification_head)),
      regression_head(std::move(regression_head)) {}

SSDHeadOutputs SSDHead::forward(const std::vector<TensorView>& x) const {
  return {.bbox_regression = regression_head(x), .cls_logits = classification_head(x)};
}

SSDFeatureExtractorVGG::SSDFeatureExtractorVGG(nn::Sequential backbone, bool highres)
    : scale_weight(fp::full({512}, 20.0)) {
  const std::vector<std::int64_t> pools = max_pool_positions(backbone);
  if (pools.size() != 5)
    refuse_ssd("SSDFeatureExtractorVGG",
               "expected VGG features with 5 max pools, got " + std::to_string(pools.size()));
  backbone.at<nn::MaxPool2d>(pools[2]).options.ceil_mode = true;
  features = backbone.slice(0, pools[3]);  // until conv4_3
  nn::Sequential conv5;                    // until conv5_3, without max pool 5, renumbered from 0
  conv5.extend(backbone.slice(pools[3], -1));
  conv5.push(vgg_fc());
  extra.push(std::move(conv5));
  extra.push(vgg_extra_block(1024, 256, 512, 3, {.stride = 2, .padding = 1}));  // conv8_2
  extra.push(vgg_extra_block(512, 128, 256, 3, {.stride = 2, .padding = 1}));   // conv9_2
  extra.push(vgg_extra_block(256, 128, 256, 3, {}));                            // conv10_2
  extra.push(vgg_extra_block(256, 128, 256, 3, {}));                            // conv11_2
  out_channels = {512, 1024, 512, 256, 256, 256};
  if (highres) {
    extra.push(vgg_extra_block(256, 128, 256, 4, {}));  // conv12_2
    out_channels.push_back(256);
  }
}

std::vector<Tensor> SSDFeatureExtractorVGG::forward(TensorView images) const {
  Tensor x = features(images);
  std::vector<Tensor> output{scale_weight.view({1, -1, 1, 1}) * functional::normalize(x)};
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(extra.size()); ++i) {
    x = extra.at<nn::Sequential>(i)(x);
    output.push_back(x);
  }
  return output;
}

SSD::SSD(std::unique_ptr<SSDBackbone> backbone, DefaultBoxGenerator anchor_generator,
         std::pair<std::int64_t, std::int64_t> size, const SSDOptions& options,
         std::optional<SSDHead> head)
    : SSD(std::move(backbone), std::move(anchor_generator), size, with_ssd_defaults(options),
          std::move(head), 0) {}

SSD::SSD(std::unique_ptr<SSDBackbone> backbone, DefaultBoxGenerator anchor_generator,
         std::pair<std::int64_t, std::int64_t> size, const SSDOptions& options,
         std::optional<SSDHead> head, int /*completed*/)
    : backbone(std::move(backbone)),
      anchor_generator(std::move(anchor_generator)),
      head(head ? std::move(*head)
                : SSDHead(this->backbone->out_channels,
                          this->anchor_generator.num_anchors_per_location(), *options.num_classes)),
      transform(std::min(size.first, size.second), std::max(size.first, size.second),
                *options.image_mean, *options.image_std, {.size_divisible = 1, .fixed_size = size}),
      score_thresh(*options.score_thresh),
      nms_thresh(*options.nms_thresh),
      detections_per_img(*options.detections_per_img),
      topk_candidates(*options.topk_candidates) {
  if (this->backbone->out_channels.size() != this->anchor_generator.aspect_ratios.size())
    refuse_ssd("SSD", "the backbone's " + std::to_string(this->backbone->out_channels.size()) +
                          " maps do not match the anchor generator's " +
                          std::to_string(this->anchor_generator.aspect_ratios.size()) +
                          " aspect ratio lists");
}

std::vector<Detection> SSD::forward(const std::vector<TensorView>& images) const {
  const ImageList batch = transform(images);  // checks every image first
  const std::vector<ImageSize> original_image_sizes = image_sizes_of(images);
  const std::vector<Tensor> features = (*backbone)(batch.tensors);
  const std::vector<TensorView> maps(features.begin(), features.end());
  const SSDHeadOutputs head_outputs = head(maps);
  const std::vector<Tensor> anchors = anchor_generator(batch, maps);
  std::vector<Detection> detections =
      postprocess_detections(head_outputs, anchors, batch.image_sizes);
  return transform.postprocess(std::move(detections), batch.image_sizes, original_image_sizes);
}

std::vector<Detection> SSD::postprocess_detections(
    const SSDHeadOutputs& head_outputs, const std::vector<Tensor>& image_anchors,
    const std::vector<ImageSize>& image_shapes) const {
  const Tensor pred_scores = functional::softmax(head_outputs.cls_logits, -1);
  const std::int64_t num_classes = pred_scores.size(-1);
  std::vector<Detection> detections;
  for (std::size_t image = 0; image < image_anchors.size(); ++image) {
    const auto index = static_cast<std::int64_t>(image);
    const auto [height, width] = image_shapes[image];
    const Tensor decoded =
        box_coder.decode_single(head_outputs.bbox_regression.i(index), image_anchors[image]);
    const Tensor boxes = ops::clip_boxes_to_image(decoded, height, width);
    const TensorView scores = pred_scores.i(index);
    std::vector<Tensor> image_boxes;
    std::vector<Tensor> image_scores;
    std::vector<Tensor> image_labels;
    for (std::int64_t label = 1; label < num_classes; ++label) {
      const TensorView score_all = scores.i(fp::all, label);
      const Tensor keep_idxs = aten::nonzero(score_all.gt(score_thresh)).reshape({-1});
      const Tensor score_kept = ssd_rows(score_all, keep_idxs);
      const Tensor box_kept = ssd_rows(boxes, keep_idxs);
      const std::int64_t num_topk = std::min(topk_candidates, score_kept.size(0));
      auto [score, idxs] = score_kept.topk(num_topk);
      image_boxes.push_back(ssd_rows(box_kept, idxs));
      image_labels.push_back(fp::full_like(score, label, DType::I64));
      image_scores.push_back(std::move(score));
    }
    const Tensor all_boxes = fp::cat(image_boxes, 0);
    const Tensor all_scores = fp::cat(image_scores, 0);
    const Tensor all_labels = fp::cat(image_labels, 0);
    Tensor keep = ops::batched_nms(all_boxes, all_scores, all_labels, nms_thresh);
    keep = keep.narrow(0, 0, std::min(detections_per_img, keep.size(0))).to_owned();
    detections.push_back({.boxes = ssd_rows(all_boxes, keep),
                          .labels = ssd_rows(all_labels, keep),
                          .scores = ssd_rows(all_scores, keep)});
  }
  return detections;
}

namespace {

/// torchvision's vgg16 `features` (its configuration "D", without batch norm).
nn::Sequential vgg16_features() {
  constexpr int M = kMaxPool;
  constexpr std::array kVgg16{64, 64,  M,   128, 128, M,   256, 256, 256,
                              M,  512, 512, 512, M,   512, 512, 512, M};
  return make_vgg_layers(kVgg16, false);
}

/// The options only ssdlite320_mobilenet_v3_large takes, refused here.
void refuse_ssdlite_options(const SSDOptions& options) {
  if (options.width_mult || options.reduced_tail || options.norm_layer || options.norm_eps)
    refuse_ssd("ssd300_vgg16",
               "width_mult, reduced_tail, norm_layer and norm_eps are "
               "ssdlite320_mobilenet_v3_large's options");
}

}  // namespace

SSD ssd300_vgg16(const SSDOptions& options) {
  refuse_ssdlite_options(options);
  SSDOptions builder_defaults = options;
  builder_defaults.image_mean =
      options.image_mean.value_or(std::vector<double>{0.48235, 0.45882, 0.40784});
  // Undoes ToTensor's scaling to [0, 1].
  builder_defaults.image_std =
      options.image_std.value_or(std::vector<double>{1.0 / 255.0, 1.0 / 255.0, 1.0 / 255.0});
  const SSDOptions completed = with_ssd_defaults(builder_defaults);  // refused before VGG is made
  DefaultBoxGenerator anchors(
      {{2}, {2, 3}, {2, 3}, {2, 3}, {2}, {2}},
      {.scales = std::vector<double>{0.07, 0.15, 0.33, 0.51, 0.69, 0.87, 1.05},
       .steps = std::vector<std::int64_t>{8, 16, 32, 64, 100, 300}});
  return SSD(std::make_unique<SSDFeatureExtractorVGG>(vgg16_features(), false), std::move(anchors),
             {300, 300}, completed);
}

}  // namespace fp::vision::models::detection
