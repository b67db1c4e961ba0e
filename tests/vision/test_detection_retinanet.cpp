// RetinaNet (v1, v2) and FCOS of fp::vision::models::detection against
// torchvision's: tests/vision/make_detection_truth.py writes each model's
// seeded random weights (the heads' outputs spread: spread_dense_scores), two
// seeded images of different sizes and torchvision's detections of them;
// this program runs with the same torch loaded (see test_detection.cpp), and
// boxes, labels and scores compare bit for bit. Changing any step of the
// postprocessing breaks them: a box coder weight of 1.0001 instead of 1
// (RetinaNet's BoxCoder) or normalize_by_size = false (FCOS's BoxLinearCoder)
// moves every box.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>
#include <flash_powder/vision/models.h>

#include "support/expect_error.h"
#include "vision/detection_truth.h"

namespace detection_retinanet_test {
namespace {

namespace detection = fp::vision::models::detection;
using detection::FCOS;
using detection::RetinaNet;
using detection::RetinaNetOptions;

using fp_test::detection_truth::model_dir;

/// The builder's options that make_detection_truth.py passed ("option.KEY").
RetinaNetOptions options_of(const fp::StateDict& truth) {
  RetinaNetOptions options;
  fp_test::detection_truth::for_each_option(
      truth, [&](const std::string& option, const fp::Tensor& value) {
        const auto whole = [&] { return value.item<std::int64_t>(); };
        const auto real = [&] { return value.item<double>(); };
        if (fp_test::detection_truth::set_shared_option(options, option, value)) return;
        if (option == "score_thresh")
          options.score_thresh = real();
        else if (option == "nms_thresh")
          options.nms_thresh = real();
        else if (option == "detections_per_img")
          options.detections_per_img = whole();
        else if (option == "topk_candidates")
          options.topk_candidates = whole();
        else
          ADD_FAILURE() << "option " << option << " is not one this test knows";
      });
  return options;
}

template <class Model>
void expect_torchvision_detections(const std::string& name,
                                   Model (*build)(const RetinaNetOptions&)) {
  fp_test::detection_truth::expect_builder_equals_torchvision(name, build, &options_of);
}

TEST(VisionDetectionRetinaNet, RetinaNetResNet50FPNEqualsTorchvision) {
  expect_torchvision_detections("retinanet_resnet50_fpn", &detection::retinanet_resnet50_fpn);
}

TEST(VisionDetectionRetinaNet, RetinaNetResNet50FPNV2EqualsTorchvision) {
  expect_torchvision_detections("retinanet_resnet50_fpn_v2", &detection::retinanet_resnet50_fpn_v2);
}

TEST(VisionDetectionRetinaNet, FCOSResNet50FPNEqualsTorchvision) {
  expect_torchvision_detections("fcos_resnet50_fpn", &detection::fcos_resnet50_fpn);
}

/// A tiny backbone for the cases that need no torchvision values (and run
/// under valgrind): three strided convolutions giving maps of strides 8, 16
/// and 32 as ResNet's layers 2 to 4, a 32-channel pyramid (GroupNorm's 32
/// groups divide it) and P6, P7 from P5, as the builders' own.
constexpr std::int64_t kChannels = 32;

detection::BackboneWithFPN tiny_backbone() {
  fp::nn::Sequential body;
  body.push(fp::nn::Conv2d(3, 8, 8, {.stride = 8}));
  body.push(fp::nn::Conv2d(8, 16, 3, {.stride = 2, .padding = 1}));
  body.push(fp::nn::Conv2d(16, kChannels, 3, {.stride = 2, .padding = 1}));
  return {fp::vision::models::IntermediateLayerGetter(std::move(body),
                                                      {{"0", "0"}, {"1", "1"}, {"2", "2"}}),
          {8, 16, kChannels},
          kChannels,
          {.extra_blocks = fp::vision::ops::LastLevelP6P7(kChannels, kChannels)}};
}

// Images resized to at most 48 pixels: maps of 6x6 down to 1x1 pixels.
const RetinaNetOptions kSmall{.num_classes = 3, .min_size = 32, .max_size = 48};

TEST(VisionDetectionRetinaNet, BadImagesAreRefused) {
  const RetinaNet retina(tiny_backbone(), kSmall);
  const FCOS fcos(tiny_backbone(), kSmall);
  fp_test::detection_truth::expect_bad_images_refused(retina);
  fp_test::detection_truth::expect_bad_images_refused(fcos);
}

TEST(VisionDetectionRetinaNet, BadOptionsAreRefused) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "RetinaNet: nms_thresh should be in [0, 1]",
                  RetinaNet(tiny_backbone(), {.nms_thresh = 1.5}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "FCOS: nms_thresh should be in [0, 1]",
                  FCOS(tiny_backbone(), {.nms_thresh = -0.5}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "detections_per_img and topk_candidates should not be negative",
                  RetinaNet(tiny_backbone(), {.detections_per_img = -1}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "detections_per_img and topk_candidates should not be negative",
                  FCOS(tiny_backbone(), {.topk_candidates = -1}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "num_classes should be at least 1, got 0",
                  RetinaNet(tiny_backbone(), {.num_classes = 0}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "min_size and max_size should be positive",
                  FCOS(tiny_backbone(), {.min_size = 0}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "num_anchors_per_location()[0] should be 1",
                  FCOS(tiny_backbone(), {},
                       {.anchor_generator = detection::AnchorGenerator(
                            {{8}, {16}, {32}, {64}, {128}},
                            std::vector<std::vector<double>>(5, {0.5, 1.0, 2.0}))}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "retinanet_resnet50_fpn_v2: backbone_norm_layer should be BatchNorm2d",
                  detection::retinanet_resnet50_fpn_v2(
                      {.backbone_norm_layer = fp::vision::ops::NormLayer::FrozenBatchNorm2d}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "takes FasterRCNNOptions, not RetinaNetOptions",
                  detection::make("fasterrcnn_resnet50_fpn", RetinaNetOptions{}));
}

// Loading another model's weights names what does not fit (the v1 head's
// convolutions have biases, the v2 one's GroupNorms; FCOS's convs are flat).
TEST(VisionDetectionRetinaNet, CheckpointOfAnotherModelIsRefused) {
  RetinaNet v1 = detection::retinanet_resnet50_fpn({.num_classes = 4});
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "head.classification_head.conv.0.0.bias",
                  v1.load_state_dict(fp::safetensors::MappedFile::open(
                      (model_dir() / "retinanet_resnet50_fpn_v2.safetensors").string())));
  FCOS fcos = detection::fcos_resnet50_fpn({.num_classes = 4});
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "head.classification_head.conv.0.weight",
                  fcos.load_state_dict(fp::safetensors::MappedFile::open(
                      (model_dir() / "retinanet_resnet50_fpn.safetensors").string())));
}

// Each by name with RetinaNetOptions or the defaults; retinanet_resnet50_fpn_v2
// as docs/guide/vision.md's example.
TEST(VisionDetectionRetinaNet, MakeBuildsThemByName) {
  const std::vector<std::string> names = detection::list_models();
  for (const std::string name :
       {"retinanet_resnet50_fpn", "retinanet_resnet50_fpn_v2", "fcos_resnet50_fpn"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;

  fp::Generator g(4);
  const std::vector<fp::Tensor> images{fp::rand({3, 120, 160}, g), fp::rand({3, 90, 70}, g)};
  std::unique_ptr<detection::DetectionModel> retina = detection::make(
      "retinanet_resnet50_fpn_v2",
      detection::RetinaNetOptions{.num_classes = 3, .min_size = 128, .max_size = 160});
  std::vector<detection::Detection> found = (*retina)(images);  // one Detection per image
  ASSERT_EQ(found.size(), 2U);
  EXPECT_EQ(found[1].boxes.size(1), 4);
  const auto* v2 = dynamic_cast<const RetinaNet*>(retina.get());
  ASSERT_NE(v2, nullptr);
  EXPECT_EQ(v2->head.classification_head.num_classes, 3);
  EXPECT_EQ(v2->score_thresh, 0.05);  // RetinaNet's own default

  const std::unique_ptr<detection::DetectionModel> net = detection::make("fcos_resnet50_fpn");
  const auto* fcos = dynamic_cast<const FCOS*>(net.get());
  ASSERT_NE(fcos, nullptr);
  EXPECT_EQ(fcos->head.classification_head.num_classes, 91);  // the builder's defaults
  EXPECT_EQ(fcos->score_thresh, 0.2);                         // FCOS's own, not RetinaNet's
}

// What torchvision's postprocessing promises of any weights (and the one
// forward per family that the valgrind and sanitizer runs go through):
// scores above the threshold, best first, labels of the classes, boxes
// inside the image given, at most detections_per_img.
TEST(VisionDetectionRetinaNet, DetectionsKeepTorchvisionsPromises) {
  RetinaNetOptions options = kSmall;
  options.score_thresh = 0.0;
  options.detections_per_img = 15;
  options.topk_candidates = 20;
  // RetinaNet with v2's GroupNorm head (v1's plain one: BadImagesAreRefused).
  const RetinaNet retina(tiny_backbone(), options,
                         {.head = detection::RetinaNetHead(kChannels, 9, *options.num_classes,
                                                           fp::vision::ops::NormLayer::GroupNorm)});
  const FCOS fcos(tiny_backbone(), options);
  fp::Generator g(2);
  const std::vector<fp::Tensor> images{fp::rand({3, 90, 70}, g), fp::rand({3, 50, 120}, g)};
  const fp_test::detection_truth::Promises promises{
      .score_thresh = *options.score_thresh,
      .num_classes = *options.num_classes,
      .detections_per_img = *options.detections_per_img,
      .first_label = 0};
  for (const detection::DetectionModel* net :
       std::vector<const detection::DetectionModel*>{&retina, &fcos})
    fp_test::detection_truth::expect_promises_kept((*net)(images), images, promises);
}

}  // namespace
}  // namespace detection_retinanet_test
