// fp::vision::models::detection's SSD models against torchvision's:
// tests/vision/make_detection_truth.py writes each model's seeded random
// weights (class scores spread by spread_ssd_scores), two seeded images of
// different sizes and torchvision's detections of them; this program runs
// with the same torch loaded (see test_detection.cpp). Boxes, labels and
// scores compare bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>
#include <flash_powder/vision/models.h>
#include <flash_powder/vision/ops/frozen_batch_norm.h>

#include "support/expect_error.h"
#include "vision/detection_truth.h"

namespace detection_ssd_test {
namespace {

namespace detection = fp::vision::models::detection;
using detection::SSD;
using detection::SSDOptions;

using fp_test::detection_truth::model_dir;

/// The builder's options that make_detection_truth.py passed ("option.KEY").
SSDOptions ssd_options_of(const fp::StateDict& truth) {
  SSDOptions options;
  fp_test::detection_truth::for_each_option(
      truth, [&](const std::string& option, const fp::Tensor& value) {
        if (option == "num_classes")
          options.num_classes = value.item<std::int64_t>();
        else if (option == "score_thresh")
          options.score_thresh = value.item<double>();
        else if (option == "nms_thresh")
          options.nms_thresh = value.item<double>();
        else if (option == "topk_candidates")
          options.topk_candidates = value.item<std::int64_t>();
        else if (option == "detections_per_img")
          options.detections_per_img = value.item<std::int64_t>();
        else if (option == "width_mult")
          options.width_mult = value.item<double>();
        else if (option == "norm_frozen")  // norm_layer=FrozenBatchNorm2d
          options.norm_layer = fp::vision::ops::NormLayer::FrozenBatchNorm2d;
        else if (option == "norm_eps")
          options.norm_eps = value.item<double>();
        else
          ADD_FAILURE() << "option " << option << " is not one this test knows";
      });
  return options;
}

void expect_torchvision_ssd_detections(const std::string& name, SSD (*build)(const SSDOptions&)) {
  fp_test::detection_truth::expect_builder_equals_torchvision(name, build, &ssd_options_of);
}

TEST(VisionDetectionSSD, SSDLite320MobileNetV3LargeEqualsTorchvision) {
  expect_torchvision_ssd_detections("ssdlite320_mobilenet_v3_large",
                                    &detection::ssdlite320_mobilenet_v3_large);
}

// torchvision's keywords that reshape SSDlite: a narrower MobileNetV3
// (width_mult=0.75) and norm_layer=partial(FrozenBatchNorm2d, eps=1e-4)
// everywhere (make_detection_truth.py's "ssdlite320_mobilenet_v3_large.narrow_frozen").
TEST(VisionDetectionSSD, SSDLiteOfOtherWidthAndNormEqualsTorchvision) {
  expect_torchvision_ssd_detections("ssdlite320_mobilenet_v3_large.narrow_frozen",
                                    &detection::ssdlite320_mobilenet_v3_large);
}

TEST(VisionDetectionSSD, SSD300VGG16EqualsTorchvision) {
  expect_torchvision_ssd_detections("ssd300_vgg16", &detection::ssd300_vgg16);
}

/// A small SSDlite (3 classes) for the refusals and the forward below.
SSD small_ssdlite(const SSDOptions& options = {.num_classes = 3}) {
  return detection::ssdlite320_mobilenet_v3_large(options);
}

TEST(VisionDetectionSSD, BadImagesAreRefused) {
  fp_test::detection_truth::expect_bad_images_refused(small_ssdlite());
}

TEST(VisionDetectionSSD, CheckpointOfAnotherModelIsRefused) {
  SSD net = small_ssdlite({.num_classes = 5});
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "backbone.scale_weight",
                  net.load_state_dict(fp::safetensors::MappedFile::open(
                      (model_dir() / "ssd300_vgg16.safetensors").string())));
  // The same model with another number of classes: the class heads' shapes differ.
  SSD other_classes = small_ssdlite({.num_classes = 3});
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "head.classification_head.module_list.0.1.weight",
                  other_classes.load_state_dict(fp::safetensors::MappedFile::open(
                      (model_dir() / "ssdlite320_mobilenet_v3_large.safetensors").string())));
}

TEST(VisionDetectionSSD, BadOptionsAreRefused) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "num_classes should be at least 2",
                  small_ssdlite({.num_classes = 1}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "num_classes should be at least 2",
                  detection::ssd300_vgg16({.num_classes = 0}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "nms_thresh should be in [0, 1]",
                  detection::ssd300_vgg16({.nms_thresh = 1.5}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "should not be negative",
                  small_ssdlite({.topk_candidates = -1}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "should not be negative",
                  detection::ssd300_vgg16({.detections_per_img = -2}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "one value per channel",
                  small_ssdlite({.image_mean = std::vector<double>{0.5, 0.5}}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "width_mult, reduced_tail, norm_layer and norm_eps are "
                  "ssdlite320_mobilenet_v3_large's options",
                  detection::ssd300_vgg16({.width_mult = 0.5}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "ssdlite320_mobilenet_v3_large's options",
                  detection::ssd300_vgg16({.norm_eps = 1e-3}));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument, "norm_layer should be BatchNorm2d or FrozenBatchNorm2d",
      small_ssdlite({.num_classes = 3, .norm_layer = fp::vision::ops::NormLayer::GroupNorm}));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument, "norm_layer should be BatchNorm2d or FrozenBatchNorm2d",
      small_ssdlite({.num_classes = 3, .norm_layer = fp::vision::ops::NormLayer::None}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "width_mult should be positive",
                  small_ssdlite({.width_mult = 0.0}));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument, "aspect_ratios and steps should have the same length",
      detection::DefaultBoxGenerator({{2}, {2, 3}}, {.steps = std::vector<std::int64_t>{8}}));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument, "scales should hold one value per map and one more",
      detection::DefaultBoxGenerator({{2}, {2}}, {.scales = std::vector<double>{0.1, 0.2}}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "aspect ratios should be positive",
                  detection::DefaultBoxGenerator({{2, -1}}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "aspect_ratios should hold one list per map",
                  detection::DefaultBoxGenerator({}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "images should be [..., H, W], got [3]",
                  detection::image_sizes_of({fp::zeros({3})}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected VGG features with 5 max pools",
                  detection::SSDFeatureExtractorVGG(fp::nn::Sequential(fp::nn::ReLU()), false));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected 6 feature maps, got 1",
                  small_ssdlite().head(std::vector<fp::TensorView>{fp::zeros({1, 672, 2, 2})}));
}

// What torchvision's postprocessing promises of any weights: scores above
// the threshold, best first, labels of real classes, boxes inside the image
// given, at most detections_per_img. (Also the forward that the valgrind and
// sanitizer runs, which load the build's own torch, go through.)
TEST(VisionDetectionSSD, DetectionsKeepTorchvisionsPromises) {
  const SSDOptions options{
      .num_classes = 3, .score_thresh = 0.2, .detections_per_img = 15, .topk_candidates = 20};
  const SSD net = small_ssdlite(options);
  fp::Generator g(5);
  const std::vector<fp::Tensor> images{fp::rand({3, 90, 70}, g), fp::rand({3, 50, 120}, g)};
  fp_test::detection_truth::expect_promises_kept(
      net(images), images,
      {.score_thresh = *options.score_thresh,
       .num_classes = *options.num_classes,
       .detections_per_img = *options.detections_per_img});
}

TEST(VisionDetectionSSD, MakeBuildsEverySSDByName) {
  const std::vector<std::string> names = detection::list_models();
  for (const std::string name : {"ssd300_vgg16", "ssdlite320_mobilenet_v3_large"}) {
    SCOPED_TRACE(name);
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end());
    const std::unique_ptr<detection::DetectionModel> net =
        detection::make(name, SSDOptions{.num_classes = 3});
    const auto* ssd = dynamic_cast<const SSD*>(net.get());
    ASSERT_NE(ssd, nullptr);
    EXPECT_EQ(ssd->head.classification_head.num_columns, 3);
    EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "takes SSDOptions, not RetinaNetOptions",
                    detection::make(name, detection::RetinaNetOptions{}));
    EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "is a detection model",
                    fp::vision::models::make(name));
  }
  // The builders' defaults: COCO's 91 classes, SSDlite's own thresholds.
  const std::unique_ptr<detection::DetectionModel> net =
      detection::make("ssdlite320_mobilenet_v3_large");
  const auto* ssdlite = dynamic_cast<const SSD*>(net.get());
  ASSERT_NE(ssdlite, nullptr);
  EXPECT_EQ(ssdlite->head.classification_head.num_columns, 91);
  EXPECT_EQ(ssdlite->score_thresh, 0.001);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "takes FasterRCNNOptions, not SSDOptions",
                  detection::make("fasterrcnn_resnet50_fpn", SSDOptions{}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "unknown model 'ssd'; known: fasterrcnn_",
                  detection::make("ssd", SSDOptions{}));
}

/// The norms after SSDlite's first convolution (MobileNetV3's stem) and
/// after its first extra block's first convolution.
std::vector<const fp::nn::ModuleBase*> first_norms(const SSD& net) {
  const auto& extractor =
      dynamic_cast<const detection::SSDLiteFeatureExtractorMobileNet&>(*net.backbone);
  // Conv2dNormActivations: a convolution, then the norm.
  const auto& stem = extractor.features.at<fp::nn::Sequential>(0).at<fp::nn::Sequential>(0);
  const auto& extra = extractor.extra.at<fp::nn::Sequential>(0).at<fp::nn::Sequential>(0);
  return {&stem[1], &extra[1]};
}

/// Their eps, each a BatchNorm2d's.
std::vector<double> batch_norm_eps(const SSD& net) {
  std::vector<double> eps;
  for (const fp::nn::ModuleBase* norm : first_norms(net))
    eps.push_back(dynamic_cast<const fp::nn::BatchNorm2d&>(*norm).options.eps);
  return eps;
}

// The norm options alone: norm_layer given alone takes the layer's own eps
// (1e-5, as Python's nn.BatchNorm2d or FrozenBatchNorm2d), norm_eps alone
// keeps the builder's BatchNorm2d.
TEST(VisionDetectionSSD, NormOptionsPickTheLayerAndItsEps) {
  using fp::vision::ops::NormLayer;
  EXPECT_EQ(batch_norm_eps(small_ssdlite()), std::vector<double>({0.001, 0.001}));
  EXPECT_EQ(batch_norm_eps(small_ssdlite({.num_classes = 3, .norm_layer = NormLayer::BatchNorm2d})),
            std::vector<double>({1e-5, 1e-5}));
  EXPECT_EQ(batch_norm_eps(small_ssdlite({.num_classes = 3, .norm_eps = 0.01})),
            std::vector<double>({0.01, 0.01}));
  const SSD frozen = small_ssdlite(
      {.num_classes = 3, .norm_layer = NormLayer::FrozenBatchNorm2d, .norm_eps = 1e-4});
  for (const fp::nn::ModuleBase* norm : first_norms(frozen))
    EXPECT_EQ(dynamic_cast<const fp::vision::ops::FrozenBatchNorm2d&>(*norm).eps, 1e-4);
  // FrozenBatchNorm2d keeps no count of batches, in the heads either.
  for (const std::string& key : frozen.state_dict().keys())
    EXPECT_EQ(key.find("num_batches_tracked"), std::string::npos) << key;
}

}  // namespace
}  // namespace detection_ssd_test
