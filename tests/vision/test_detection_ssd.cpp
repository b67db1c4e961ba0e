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

#include "support/expect_error.h"
#include "vision/ops_truth.h"

namespace detection_ssd_test {
namespace {

namespace detection = fp::vision::models::detection;
using detection::SSD;
using detection::SSDOptions;

std::filesystem::path ssd_model_dir() {
  return std::filesystem::path(FP_VISION_DETECTION_DIR);
}

/// NAME-CAP.safetensors of make_detection_truth.py: options, images, detections.
fp::StateDict ssd_detections_of(const std::string& name) {
  return fp::safetensors::load(
      (ssd_model_dir() / (name + "-" + std::string(fp::torch_cpu_capability()) + ".safetensors"))
          .string());
}

/// The builder's options that make_detection_truth.py passed ("option.KEY").
SSDOptions ssd_options_of(const fp::StateDict& truth) {
  SSDOptions options;
  for (const auto& key : truth.keys()) {
    if (!key.starts_with("option.")) continue;
    const std::string option = key.substr(7);
    const fp::Tensor& value = truth.at(key);
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
    else
      ADD_FAILURE() << "option " << option << " is not one this test knows";
  }
  return options;
}

/// The SSD of builder `build` with make_detection_truth.py's weights of `name`.
SSD ssd_with_weights(const std::string& name, SSD (*build)(const SSDOptions&),
                     const SSDOptions& options) {
  SSD net = build(options);
  const auto checkpoint =
      fp::safetensors::MappedFile::open((ssd_model_dir() / (name + ".safetensors")).string());
  std::vector<std::string> expected = checkpoint.keys();
  std::vector<std::string> actual = net.state_dict().keys();
  std::sort(expected.begin(), expected.end());
  std::sort(actual.begin(), actual.end());
  EXPECT_EQ(actual, expected);  // torchvision's keys, no more, no fewer
  net.load_state_dict(checkpoint);
  return net;
}

void expect_torchvision_ssd_detections(const std::string& name, SSD (*build)(const SSDOptions&)) {
  const fp::StateDict truth = ssd_detections_of(name);
  const SSD net = ssd_with_weights(name, build, ssd_options_of(truth));
  const std::vector<fp::Tensor> images{truth.at("image0"), truth.at("image1")};
  ASSERT_NE(images[0].size(1), images[1].size(1));  // images of different sizes
  const std::vector<detection::Detection> found = net(images);
  ASSERT_EQ(found.size(), 2U);
  for (std::size_t i = 0; i < found.size(); ++i) {
    SCOPED_TRACE("image " + std::to_string(i));
    const std::string index = std::to_string(i);
    EXPECT_TRUE(fp_test::bit_equal(found[i].boxes, truth.at("boxes" + index)));
    EXPECT_TRUE(fp_test::bit_equal(found[i].labels, truth.at("labels" + index)));
    EXPECT_TRUE(fp_test::bit_equal(found[i].scores, truth.at("scores" + index)));
    EXPECT_FALSE(found[i].masks.is_defined());
  }
}

TEST(VisionDetectionSSD, SSDLite320MobileNetV3LargeEqualsTorchvision) {
  expect_torchvision_ssd_detections("ssdlite320_mobilenet_v3_large",
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
  const SSD net = small_ssdlite();
  fp::Generator g(4);
  const fp::Tensor image = fp::rand({3, 40, 50}, g);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "no images", net(std::vector<fp::Tensor>{}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "of shape [3, H, W], got [4, 40, 50]",
                  net(std::vector<fp::Tensor>{image, fp::rand({4, 40, 50}, g)}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "of shape [3, H, W], got [1, 3, 40, 50]",
                  net(std::vector<fp::Tensor>{fp::rand({1, 3, 40, 50}, g)}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected input images to be of floating type",
                  net(std::vector<fp::Tensor>{fp::zeros({3, 40, 50}, fp::DType::U8)}));
}

TEST(VisionDetectionSSD, CheckpointOfAnotherModelIsRefused) {
  SSD net = small_ssdlite({.num_classes = 5});
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "backbone.scale_weight",
                  net.load_state_dict(fp::safetensors::MappedFile::open(
                      (ssd_model_dir() / "ssd300_vgg16.safetensors").string())));
  // The same model with another number of classes: the class heads' shapes differ.
  SSD other_classes = small_ssdlite({.num_classes = 3});
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "head.classification_head.module_list.0.1.weight",
                  other_classes.load_state_dict(fp::safetensors::MappedFile::open(
                      (ssd_model_dir() / "ssdlite320_mobilenet_v3_large.safetensors").string())));
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
                  "width_mult and reduced_tail are ssdlite320_mobilenet_v3_large's options",
                  detection::ssd300_vgg16({.width_mult = 0.5}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "width_mult should be positive",
                  small_ssdlite({.width_mult = 0.0}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "aspect_ratios and steps should have the same length",
                  detection::DefaultBoxGenerator({{2}, {2, 3}},
                                                 {.steps = std::vector<std::int64_t>{8}}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "scales should hold one value per map and one more",
                  detection::DefaultBoxGenerator({{2}, {2}},
                                                 {.scales = std::vector<double>{0.1, 0.2}}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "aspect ratios should be positive",
                  detection::DefaultBoxGenerator({{2, -1}}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "aspect_ratios should hold one list per map",
                  detection::DefaultBoxGenerator({}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected VGG features with 5 max pools",
                  detection::SSDFeatureExtractorVGG(fp::nn::Sequential(fp::nn::ReLU()), false));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected 6 feature maps, got 1",
                  small_ssdlite().head(std::vector<fp::TensorView>{fp::zeros({1, 672, 2, 2})}));
}

/// Whether `values` ([N]) never increases.
bool ssd_non_increasing(const fp::Tensor& values) {
  const auto v = values.data<float>();
  return std::is_sorted(v.begin(), v.end(), std::greater<>());
}

// What torchvision's postprocessing promises of any weights: scores above
// the threshold, best first, labels of real classes, boxes inside the image
// given, at most detections_per_img. (Also the forward that the valgrind and
// sanitizer runs, which load the build's own torch, go through.)
TEST(VisionDetectionSSD, DetectionsKeepTorchvisionsPromises) {
  const SSDOptions options{.num_classes = 3,
                           .score_thresh = 0.2,
                           .detections_per_img = 15,
                           .topk_candidates = 20};
  const SSD net = small_ssdlite(options);
  fp::Generator g(5);
  const std::vector<fp::Tensor> images{fp::rand({3, 90, 70}, g), fp::rand({3, 50, 120}, g)};
  const std::vector<detection::Detection> found = net(images);
  ASSERT_EQ(found.size(), images.size());
  for (std::size_t i = 0; i < found.size(); ++i) {
    SCOPED_TRACE("image " + std::to_string(i));
    const detection::Detection& d = found[i];
    const std::int64_t n = d.scores.size(0);
    ASSERT_GT(n, 0);
    EXPECT_LE(n, *options.detections_per_img);
    EXPECT_EQ(d.boxes.size(0), n);
    EXPECT_EQ(d.boxes.size(1), 4);
    EXPECT_EQ(d.labels.dtype(), fp::DType::I64);
    EXPECT_TRUE(ssd_non_increasing(d.scores));
    EXPECT_GT(d.scores.min().item<double>(), *options.score_thresh);
    EXPECT_GE(d.labels.min().item<std::int64_t>(), 1);
    EXPECT_LT(d.labels.max().item<std::int64_t>(), *options.num_classes);
    const fp::Tensor x = d.boxes.i(fp::all, fp::slice(0, fp::end, 2)).to_owned();
    const fp::Tensor y = d.boxes.i(fp::all, fp::slice(1, fp::end, 2)).to_owned();
    EXPECT_GE(x.min().item<double>(), 0.0);
    EXPECT_LE(x.max().item<double>(), static_cast<double>(images[i].size(2)));
    EXPECT_GE(y.min().item<double>(), 0.0);
    EXPECT_LE(y.max().item<double>(), static_cast<double>(images[i].size(1)));
  }
}

TEST(VisionDetectionSSD, MakeSsdBuildsEverySSDByName) {
  for (const std::string name : {"ssd300_vgg16", "ssdlite320_mobilenet_v3_large"}) {
    SCOPED_TRACE(name);
    const std::vector<std::string> names = detection::list_models();
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end());
    const std::unique_ptr<SSD> net = detection::make_ssd(name, {.num_classes = 3});
    EXPECT_EQ(net->head.classification_head.num_columns, 3);
    EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "is an SSD model; build it with",
                    detection::make(name));
    EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "is a detection model",
                    fp::vision::models::make(name));
  }
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "unknown model 'ssd'; known: ssd300_vgg16",
                  detection::make_ssd("ssd"));
}

}  // namespace
}  // namespace detection_ssd_test
