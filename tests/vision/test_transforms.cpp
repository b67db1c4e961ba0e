// fp::vision::transforms against torchvision's ImageClassification preset
// (weights.transforms()) and center_crop, run by tests/vision/make_models.py
// for this CPU lane.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>
#include <flash_powder/vision/transforms.h>

#include "support/expect_error.h"
#include "support/handle_listener.h"

namespace {

namespace transforms = fp::vision::transforms;

const fp::StateDict& truth() {
  // Loaded once for the process: not a leak of the first test that asks.
  static const fp::StateDict loaded = fp_test::process_lifetime([] {
    return fp::safetensors::load(
        std::filesystem::path(FP_VISION_MODEL_DIR) /
        ("preprocessing-" + std::string(fp::torch_cpu_capability()) + ".safetensors"));
  });
  return loaded;
}

TEST(VisionTransforms, ImageClassificationEqualsTorchvision) {
  for (int index = 0; index < 5; ++index) {
    const std::string suffix = std::to_string(index);
    const fp::Tensor& image = truth().at("image" + suffix);
    const fp::Tensor from_uint8 = transforms::image_classification(image);
    EXPECT_TRUE(from_uint8.is_equal(truth().at("expected" + suffix))) << "image " << index;
    const fp::Tensor from_float = transforms::image_classification(image.to(fp::DType::F32) / 255);
    EXPECT_TRUE(from_float.is_equal(truth().at("float_expected" + suffix))) << "image " << index;
  }
}

TEST(VisionTransforms, CenterCropEqualsTorchvision) {
  const fp::Tensor& small = truth().at("image4");
  EXPECT_TRUE(transforms::center_crop(small, 100, 120).is_equal(truth().at("crop_small")));
  EXPECT_TRUE(transforms::center_crop(small, 31, 40).is_equal(truth().at("crop_odd")));
}

TEST(VisionTransforms, PresetsByNameEqualTorchvision) {
  // make_models.py's PRESET_MODELS: other sizes (inception_v3: 342 -> 299),
  // bicubic (efficientnet_b3, vit_h_14), SemanticSegmentation (fcn_resnet50).
  for (const char* name : {"inception_v3", "efficientnet_b3", "vit_h_14", "fcn_resnet50"}) {
    const transforms::Preset preset = transforms::preset(name);
    const std::string key = std::string("preset_") + name;
    EXPECT_TRUE(preset(truth().at("image4")).is_equal(truth().at(key))) << name;
    const fp::Tensor batch = truth().at("image3").to(fp::DType::F32) / 255;
    EXPECT_TRUE(preset(batch).is_equal(truth().at(key + "_batch"))) << name;
  }
  EXPECT_EQ(transforms::preset("fcn_resnet50").kind, transforms::PresetKind::SemanticSegmentation);
  EXPECT_EQ(transforms::preset("resnet50").image_classification.crop_size, 224);
  // Every torchvision classification and segmentation builder has one
  // (the CTest vision_presets_up_to_date compares the table with torchvision's).
  EXPECT_EQ(transforms::preset_names().size(), 86u);
}

TEST(VisionTransforms, SemanticSegmentationEqualsTorchvision) {
  const fp::Tensor& small = truth().at("image4");
  EXPECT_TRUE(transforms::semantic_segmentation(small).is_equal(truth().at("preset_fcn_resnet50")));
  EXPECT_TRUE(transforms::semantic_segmentation(small, {.resize_size = std::nullopt})
                  .is_equal(truth().at("segmentation_unresized")));
}

TEST(VisionTransforms, ResizedSizeKeepsTheAspectRatio) {
  EXPECT_EQ(transforms::resized_size(300, 400, 256), (std::array<std::int64_t, 2>{256, 341}));
  EXPECT_EQ(transforms::resized_size(500, 180, 256), (std::array<std::int64_t, 2>{711, 256}));
  EXPECT_EQ(transforms::resized_size(10, 10, 5), (std::array<std::int64_t, 2>{5, 5}));
}

TEST(VisionTransforms, BadInputIsRefused) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "expected a [3, H, W] or [N, 3, H, W] image, got [4, 10, 10]",
                  transforms::image_classification(fp::zeros({4, 10, 10}, fp::DType::U8)));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "at least 3 dimensions",
                  transforms::image_classification(fp::zeros({10, 10}, fp::DType::U8)));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "expected a uint8, uint16 or floating-point image, got",
                  transforms::image_classification(fp::zeros({3, 10, 10}, fp::DType::I32)));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "undefined",
                  transforms::image_classification(fp::Tensor()));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "sizes must be positive",
                  transforms::resized_size(0, 10, 5));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "the crop size must be positive",
                  transforms::center_crop(fp::zeros({3, 4, 4}), 0, 2));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected a floating-point image",
                  transforms::normalize(fp::zeros({3, 4, 4}, fp::DType::U8), {0, 0, 0}, {1, 1, 1}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected 3 channels",
                  transforms::normalize(fp::zeros({2, 4, 4}), {0, 0, 0}, {1, 1, 1}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "std contains a zero",
                  transforms::normalize(fp::zeros({3, 4, 4}), {0, 0, 0}, {1, 0, 1}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "semantic_segmentation: expected a [3, H, W] or [N, 3, H, W] image",
                  transforms::semantic_segmentation(fp::zeros({1, 1, 4, 10, 10})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected a uint8, uint16 or floating-point image",
                  transforms::semantic_segmentation(fp::zeros({3, 10, 10}, fp::DType::Bool)));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "sizes must be positive",
                  transforms::semantic_segmentation(fp::zeros({3, 10, 10}), {.resize_size = 0}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "no preset for model 'resnet51'; known: alexnet",
                  transforms::preset("resnet51"));
}

}  // namespace
