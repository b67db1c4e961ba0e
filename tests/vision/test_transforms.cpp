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
}

}  // namespace
