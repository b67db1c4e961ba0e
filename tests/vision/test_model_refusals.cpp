// The newer classifier families' refusals of bad input and options (each
// builder and class), as fp::Error with torchvision's words where it has them.
// Their keys and outputs against torchvision: test_models.cpp.
#include <optional>

#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>
#include <flash_powder/vision/models.h>

#include "support/expect_error.h"

namespace {

namespace models = fp::vision::models;

TEST(VisionModels, ConvNeXtRefusesBadInputAndOptions) {
  const models::ConvNeXt small({{8, 16, 1}, {16, std::nullopt, 1}}, {.num_classes = 3});
  EXPECT_TORCH_ERROR("channels", small(fp::zeros({1, 4, 32, 32})));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "", small(fp::zeros({1, 3, 2, 2})));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "", small(fp::zeros({3, 32, 32})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "The block_setting should not be empty",
                  models::ConvNeXt({}));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument, "drop probability has to be between 0 and 1, but got 1.5",
      models::ConvNeXt({{8, 16, 1}, {16, std::nullopt, 1}}, {.stochastic_depth_prob = 1.5}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "mode has to be either 'batch' or 'row'",
                  fp::vision::ops::StochasticDepth(0.1, "col"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "",
                  models::ConvNeXt({{8, std::nullopt, 1}}, {.num_classes = -1}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "convnext_tiny has no dropout option",
                  models::make("convnext_tiny", {.dropout = 0.1}));
}

}  // namespace
