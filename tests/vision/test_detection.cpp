// fp::vision::models::detection against torchvision's detection models:
// tests/vision/make_detection_truth.py writes each model's seeded random
// weights, two seeded images of different sizes and torchvision's
// detections of them. It runs beside torch 2.14.1 (the torch that loads
// torchvision's compiled nms and roi_align), and this program runs with that
// same torch loaded (tests/vision/with_torchvision_ops_torch.sh): a model's
// numbers go through libtorch's convolution and matrix kernels, so both
// sides must use the same ones. Boxes, labels and scores compare bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>
#include <flash_powder/vision/models.h>

#include "support/expect_error.h"
#include "vision/detection_truth.h"

namespace detection_test {
namespace {

namespace detection = fp::vision::models::detection;
using detection::FasterRCNN;
using detection::FasterRCNNOptions;

using fp_test::detection_truth::model_dir;

/// The builder's options that make_detection_truth.py passed ("option.KEY").
FasterRCNNOptions options_of(const fp::StateDict& truth) {
  FasterRCNNOptions options;
  fp_test::detection_truth::for_each_option(
      truth, [&](const std::string& option, const fp::Tensor& value) {
        const auto whole = [&] { return value.item<std::int64_t>(); };
        const auto real = [&] { return value.item<double>(); };
        if (fp_test::detection_truth::set_shared_option(options, option, value)) return;
        if (option == "num_keypoints")
          options.num_keypoints = whole();
        else if (option == "rpn_pre_nms_top_n_test")
          options.rpn_pre_nms_top_n_test = whole();
        else if (option == "rpn_post_nms_top_n_test")
          options.rpn_post_nms_top_n_test = whole();
        else if (option == "rpn_nms_thresh")
          options.rpn_nms_thresh = real();
        else if (option == "rpn_score_thresh")
          options.rpn_score_thresh = real();
        else if (option == "box_score_thresh")
          options.box_score_thresh = real();
        else if (option == "box_nms_thresh")
          options.box_nms_thresh = real();
        else if (option == "box_detections_per_img")
          options.box_detections_per_img = whole();
        else
          ADD_FAILURE() << "option " << option << " is not one this test knows";
      });
  return options;
}

template <class Model>
void expect_torchvision_detections(const std::string& name,
                                   Model (*build)(const FasterRCNNOptions&)) {
  fp_test::detection_truth::expect_builder_equals_torchvision(name, build, &options_of);
}

TEST(VisionDetection, FasterRCNNMobileNetV3Large320FPNEqualsTorchvision) {
  expect_torchvision_detections("fasterrcnn_mobilenet_v3_large_320_fpn",
                                &detection::fasterrcnn_mobilenet_v3_large_320_fpn);
}

TEST(VisionDetection, FasterRCNNMobileNetV3LargeFPNEqualsTorchvision) {
  expect_torchvision_detections("fasterrcnn_mobilenet_v3_large_fpn",
                                &detection::fasterrcnn_mobilenet_v3_large_fpn);
}

TEST(VisionDetection, FasterRCNNResNet50FPNEqualsTorchvision) {
  expect_torchvision_detections("fasterrcnn_resnet50_fpn", &detection::fasterrcnn_resnet50_fpn);
}

TEST(VisionDetection, FasterRCNNResNet50FPNV2EqualsTorchvision) {
  expect_torchvision_detections("fasterrcnn_resnet50_fpn_v2",
                                &detection::fasterrcnn_resnet50_fpn_v2);
}

TEST(VisionDetection, MaskRCNNResNet50FPNEqualsTorchvision) {
  expect_torchvision_detections("maskrcnn_resnet50_fpn", &detection::maskrcnn_resnet50_fpn);
}

TEST(VisionDetection, MaskRCNNResNet50FPNV2EqualsTorchvision) {
  expect_torchvision_detections("maskrcnn_resnet50_fpn_v2", &detection::maskrcnn_resnet50_fpn_v2);
}

TEST(VisionDetection, KeypointRCNNResNet50FPNEqualsTorchvision) {
  expect_torchvision_detections("keypointrcnn_resnet50_fpn", &detection::keypointrcnn_resnet50_fpn);
}

TEST(VisionDetection, BadImagesAreRefused) {
  fp_test::detection_truth::expect_bad_images_refused(
      detection::fasterrcnn_mobilenet_v3_large_320_fpn({.num_classes = 3}));
}

TEST(VisionDetection, CheckpointOfAnotherModelIsRefused) {
  FasterRCNN net = detection::fasterrcnn_mobilenet_v3_large_fpn({.num_classes = 5});
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "backbone.body.layer1.0.conv1.weight",
                  net.load_state_dict(fp::safetensors::MappedFile::open(
                      (model_dir() / "fasterrcnn_resnet50_fpn.safetensors").string())));
}

// What torchvision's postprocessing promises of any weights: scores above
// the threshold, best first, labels of real classes, boxes inside the image
// given, at most box_detections_per_img. (Also the forward that the
// valgrind and sanitizer runs, which load the build's own torch, go through.)
TEST(VisionDetection, DetectionsKeepTorchvisionsPromises) {
  const FasterRCNNOptions options{.num_classes = 3,
                                  .min_size = 96,
                                  .max_size = 128,
                                  .rpn_post_nms_top_n_test = 30,
                                  .box_score_thresh = 0.2,
                                  .box_detections_per_img = 12};
  const FasterRCNN net = detection::fasterrcnn_mobilenet_v3_large_320_fpn(options);
  fp::Generator g(2);
  const std::vector<fp::Tensor> images{fp::rand({3, 90, 70}, g), fp::rand({3, 50, 120}, g)};
  fp_test::detection_truth::expect_promises_kept(
      net(images), images,
      {.score_thresh = options.box_score_thresh,
       .num_classes = *options.num_classes,
       .detections_per_img = options.box_detections_per_img});
}

std::vector<std::int64_t> sizes_of(const fp::Tensor& t) {
  return {t.sizes().begin(), t.sizes().end()};
}

// No score passes a threshold of 1: every result is empty, of torchvision's
// shapes (boxes [0, 4], masks [0, 1, H, W], keypoints [0, K, 3]).
TEST(VisionDetection, NothingDetectedGivesEmptyResults) {
  const FasterRCNNOptions options{.num_classes = 3,
                                  .min_size = 64,
                                  .max_size = 96,
                                  .rpn_post_nms_top_n_test = 10,
                                  .box_score_thresh = 1.0};
  fp::Generator g(3);
  const std::vector<fp::Tensor> images{fp::rand({3, 50, 60}, g), fp::rand({3, 40, 30}, g)};
  const std::vector<detection::Detection> boxes_only =
      detection::fasterrcnn_mobilenet_v3_large_320_fpn(options)(images);
  EXPECT_EQ(sizes_of(boxes_only[0].boxes), (std::vector<std::int64_t>{0, 4}));
  EXPECT_EQ(sizes_of(boxes_only[0].labels), (std::vector<std::int64_t>{0}));
  EXPECT_EQ(sizes_of(boxes_only[0].scores), (std::vector<std::int64_t>{0}));
  EXPECT_FALSE(boxes_only[0].masks.is_defined());
  const std::vector<detection::Detection> masks = detection::maskrcnn_resnet50_fpn(options)(images);
  EXPECT_EQ(sizes_of(masks[0].masks), (std::vector<std::int64_t>{0, 1, 50, 60}));
  FasterRCNNOptions keypoint_options = options;
  keypoint_options.num_keypoints = 4;
  const std::vector<detection::Detection> keypoints =
      detection::keypointrcnn_resnet50_fpn(keypoint_options)(images);
  EXPECT_EQ(sizes_of(keypoints[1].keypoints), (std::vector<std::int64_t>{0, 4, 3}));
  EXPECT_EQ(sizes_of(keypoints[1].keypoints_scores), (std::vector<std::int64_t>{0, 4}));
}

TEST(VisionDetection, BadPartsAreRefused) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "sizes and aspect_ratios should be non-empty lists",
                  detection::AnchorGenerator({{32}, {64}}, {{1.0}}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "map 0 has no sizes",
                  detection::AnchorGenerator({{}}, {{1.0}}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "min_size and max_size should be positive",
                  detection::GeneralizedRCNNTransform(0, 10, {0.5}, {0.5}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "one value per channel",
                  detection::GeneralizedRCNNTransform(5, 10, {0.5}, {0.5, 0.2}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "boxes should be [N, 4], got [2, 3]",
                  detection::resize_boxes(fp::zeros({2, 3}), {10, 10}, {20, 20}));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument, "each returned layer should be in the range [1,4]",
      detection::resnet_fpn_backbone(fp::vision::models::resnet18(),
                                     {.returned_layers = std::vector<std::int64_t>{0}}));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument, "expected [N, 1, M, M] masks and [N, 4] boxes",
      detection::paste_masks_in_image(fp::zeros({2, 1, 28, 28}), fp::zeros({3, 4}), {40, 50}));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument, "expected [N, 1, M, M] masks and [N, 4] boxes",
      detection::paste_masks_in_image(fp::zeros({2, 28, 28}), fp::zeros({2, 4}), {40, 50}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected [R, K, H, W] maps and [R, 4] rois",
                  detection::heatmaps_to_keypoints(fp::zeros({2, 5, 8, 8}), fp::zeros({3, 4})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "keypoints should be [N, K, 3], got [2, 5]",
                  detection::resize_keypoints(fp::zeros({2, 5}), {10, 10}, {20, 20}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "num_keypoints is Keypoint R-CNN's option",
                  detection::fasterrcnn_mobilenet_v3_large_320_fpn({.num_keypoints = 5}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "norm_layer should be BatchNorm2d or FrozenBatchNorm2d",
                  fp::vision::models::resnet18({.norm_layer = fp::vision::ops::NormLayer::None}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "backbone_norm_layer should be BatchNorm2d",
                  detection::fasterrcnn_resnet50_fpn_v2(
                      {.backbone_norm_layer = fp::vision::ops::NormLayer::FrozenBatchNorm2d}));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument, "norm_layer should be BatchNorm2d or FrozenBatchNorm2d",
      fp::vision::models::mobilenet_v3_large({.norm_layer = fp::vision::ops::NormLayer::None}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "box_nms_thresh should be in [0, 1]",
                  detection::fasterrcnn_mobilenet_v3_large_320_fpn({.box_nms_thresh = 1.5}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "nms_thresh should be in [0, 1]",
                  detection::fasterrcnn_mobilenet_v3_large_320_fpn({.rpn_nms_thresh = -1.0}));
}

TEST(VisionDetection, MakeBuildsEveryDetectionModelByName) {
  const std::vector<std::string> names = detection::list_models();
  ASSERT_FALSE(names.empty());
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "is a detection model",
                    fp::vision::models::make(name));
    if (name.find("rcnn") == std::string::npos) {
      // RetinaNet and FCOS: tests/vision/test_detection_retinanet.cpp; the
      // SSDs: tests/vision/test_detection_ssd.cpp.
      const std::string takes = name.starts_with("ssd") ? "SSDOptions" : "RetinaNetOptions";
      EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "takes " + takes + ", not FasterRCNNOptions",
                      detection::make(name, FasterRCNNOptions{.num_classes = 3}));
      continue;
    }
    const std::unique_ptr<detection::DetectionModel> net =
        detection::make(name, FasterRCNNOptions{.num_classes = 3});
    const auto* rcnn = dynamic_cast<const FasterRCNN*>(net.get());
    ASSERT_NE(rcnn, nullptr);
    EXPECT_EQ(rcnn->roi_heads.box_predictor.cls_score.out_features, 3);
  }
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "unknown model 'fasterrcnn'; known: fasterrcnn_",
                  detection::make("fasterrcnn"));
}

// Every detection builder of torchvision's, no more, no fewer
// (make_detection_truth.py writes torchvision's list, sorted).
TEST(VisionDetection, ListModelsEqualsTorchvision) {
  std::ifstream file(model_dir() / "list_models.txt");
  ASSERT_TRUE(file.is_open());
  std::vector<std::string> torchvision_names;
  for (std::string line; std::getline(file, line);)
    torchvision_names.push_back(line);
  ASSERT_FALSE(torchvision_names.empty());
  EXPECT_EQ(detection::list_models(), torchvision_names);
}

}  // namespace
}  // namespace detection_test
