// The newer classifier families' refusals of bad input and options (each
// builder and class), as fp::Error with torchvision's words where it has them.
// Their keys and outputs against torchvision: test_models.cpp.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

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
                  models::ConvNeXt({{8, std::nullopt, 2}}, {.num_classes = -1}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "needs 2 blocks or more",
                  models::ConvNeXt({{8, std::nullopt, 1}}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "convnext_tiny has no dropout option",
                  models::make("convnext_tiny", {.dropout = 0.1}));
}

TEST(VisionModels, EfficientNetRefusesBadInputAndOptions) {
  const std::vector<models::MBConvConfig> setting{{1, 3, 1, 8, 8, 1, true}, {4, 3, 2, 8, 16, 1}};
  const models::EfficientNet small(setting, 0.2, 0.2, 3);
  EXPECT_TORCH_ERROR("channels", small(fp::zeros({1, 4, 32, 32})));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "", small(fp::zeros({1, 3, 0, 0})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "BatchNorm2d: expected 4D input (got 3D input)",
                  small(fp::zeros({3, 32, 32})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "The inverted_residual_setting should not be empty",
                  models::EfficientNet({}, 0.2));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "MBConv: illegal stride value 3",
                  models::MBConv({4, 3, 3, 8, 16, 1}, 0.0));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "FusedMBConv: illegal stride value 0",
                  models::MBConv({4, 3, 0, 8, 16, 1, true}, 0.0));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "dropout probability has to be between 0 and 1, but got 1.5",
                  models::EfficientNet(setting, 1.5));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "drop probability has to be between 0 and 1, but got 1.5",
                  models::EfficientNet(setting, 0.2, 3.0));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "", models::EfficientNet(setting, 0.2, 0.2, -1));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "dropout probability has to be between 0 and 1",
                  models::efficientnet_b0({.dropout = -0.5}));
  // The builders' options (make's dropout among them) reach the network.
  const std::unique_ptr<fp::nn::Module> b0 =
      models::make("efficientnet_b0", {.num_classes = 5, .dropout = 0.5});
  EXPECT_EQ(b0->state_dict().at("classifier.1.bias").size(0), 5);
  EXPECT_EQ(dynamic_cast<models::EfficientNet&>(*b0).classifier.at<fp::nn::Dropout>(0).p, 0.5);
}

TEST(VisionModels, RegNetRefusesBadInputAndOptions) {
  const models::RegNet small(models::BlockParams::from_init_params(3, 8, 8.0, 2.0, 8, 1.0, 0.25),
                             {.num_classes = 3, .stem_width = 8});
  EXPECT_TORCH_ERROR("channels", small(fp::zeros({1, 4, 32, 32})));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "", small(fp::zeros({1, 3, 0, 0})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "BatchNorm2d: expected 4D input (got 3D input)",
                  small(fp::zeros({3, 32, 32})));
  struct Settings {
    std::int64_t w_0;
    double w_a, w_m;
  };
  for (const Settings bad : {Settings{8, -1.0, 2.0}, Settings{0, 8.0, 2.0}, Settings{12, 8.0, 2.0},
                             Settings{8, 8.0, 1.0}})
    EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "Invalid RegNet settings",
                    models::BlockParams::from_init_params(3, bad.w_0, bad.w_a, bad.w_m, 8));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "",
                  models::RegNet(models::BlockParams::from_init_params(3, 8, 8.0, 2.0, 8),
                                 {.num_classes = -1}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "regnet_x_400mf has no dropout option",
                  models::make("regnet_x_400mf", {.dropout = 0.1}));
}

TEST(VisionModels, Inception3RefusesBadInputAndOptions) {
  models::Inception3 net({.num_classes = 3, .aux_logits = false});
  EXPECT_TORCH_ERROR("channels", net(fp::zeros({1, 4, 75, 75})));
  // Below torchvision's min_size of 75 the last grid reduction finds too little.
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "", net(fp::zeros({1, 3, 74, 74})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "BatchNorm2d: expected 4D input (got 3D input)",
                  net(fp::zeros({3, 75, 75})));
  // transform_input reads channels 0, 1 and 2 (a view of each).
  net.transform_input = true;
  EXPECT_TORCH_ERROR("channels", net(fp::zeros({1, 1, 75, 75})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "", models::inception_v3({.num_classes = -1}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "dropout probability has to be between 0 and 1, but got 1.5",
                  models::inception_v3({.dropout = 1.5}));
  EXPECT_EQ(models::make("inception_v3", {.num_classes = 4, .dropout = 0.1})
                ->state_dict()
                .at("AuxLogits.fc.bias")
                .size(0),
            4);
}

}  // namespace
