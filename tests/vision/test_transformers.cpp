// fp::vision::models' transformers (ViT, Swin): builders by name, bad input
// and bad options. Their outputs and keys against torchvision are
// test_models.cpp's Torchvision/ModelTest and KeysOnlyTest cases.
#include <cstdint>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>
#include <flash_powder/vision/models.h>

#include "support/expect_error.h"

namespace {

namespace models = fp::vision::models;

TEST(VisionModels, TransformersByName) {
  const fp::nn::DefaultDevice meta(fp::Device::meta());
  for (const char* name : {"vit_b_16", "vit_b_32", "vit_l_16", "vit_l_32", "vit_h_14", "swin_t",
                           "swin_s", "swin_b", "swin_v2_t", "swin_v2_s", "swin_v2_b"}) {
    const std::unique_ptr<fp::nn::Module> net =
        models::make(name, {.num_classes = 3, .dropout = 0.1});
    EXPECT_TRUE(net->state_dict().keys().back().ends_with("head.bias")) << name;
  }
  EXPECT_EQ(models::make("vit_b_32")->state_dict().keys(), models::vit_b_32().state_dict().keys());
  EXPECT_EQ(
      models::make("vit_l_16", {.num_classes = 5})->state_dict().at("heads.head.bias").size(0), 5);
}

TEST(VisionModels, TransformersRefuseBadInput) {
  const models::VisionTransformer vit(8, 1, 2, 16, 32, {.num_classes = 3, .image_size = 32});
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "Wrong image height! Expected 32 but got 16!",
                  vit(fp::zeros({1, 3, 16, 32})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "Wrong image width! Expected 32 but got 40!",
                  vit(fp::zeros({1, 3, 32, 40})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "expected [N, C, H, W] images, got torch.Size([3, 32, 32])",
                  vit(fp::zeros({3, 32, 32})));
  EXPECT_TORCH_ERROR("channels", vit(fp::zeros({1, 4, 32, 32})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "Expected (batch_size, seq_length, hidden_dim) got torch.Size([17, 16])",
                  vit.encoder(fp::zeros({17, 16})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "Expected (batch_size, seq_length, hidden_dim) got torch.Size([17, 16])",
                  vit.encoder.layers[0](fp::zeros({17, 16})));
}

TEST(VisionModels, TransformersRefuseBadOptions) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "Input shape indivisible by patch size!",
                  models::VisionTransformer(8, 1, 2, 16, 32, {.image_size = 30}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "",
                  models::VisionTransformer(8, 1, 3, 16, 32, {.image_size = 32}));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument, "",
      models::VisionTransformer(8, 1, 2, 16, 32, {.num_classes = -1, .image_size = 32}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "dropout probability has to be between 0 and 1",
                  models::VisionTransformer(8, 1, 2, 16, 32, {.image_size = 32, .dropout = 1.5}));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument, "",
      models::VisionTransformer(8, 1, 2, 16, 32, {.image_size = 32, .representation_size = -2}));
  // image_size reaches the position embedding: one token per patch and the class token.
  const fp::nn::DefaultDevice meta(fp::Device::meta());
  EXPECT_EQ(models::vit_b_16({.image_size = 384}).encoder.pos_embedding.size(1), 24 * 24 + 1);
  EXPECT_EQ(models::vit_h_14({.image_size = 518}).encoder.pos_embedding.size(1), 37 * 37 + 1);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "Input shape indivisible by patch size!",
                  models::vit_b_16({.image_size = 200}));
}

/// The smallest Swin of each version: two stages of one block.
models::SwinTransformer tiny_swin(models::SwinVersion version) {
  return models::SwinTransformer({4, 4}, 8, {1, 1}, {2, 2}, {2, 2}, version, {.num_classes = 3});
}

TEST(VisionModels, SwinRefusesBadInput) {
  for (const models::SwinVersion version : {models::SwinVersion::V1, models::SwinVersion::V2}) {
    const models::SwinTransformer swin = tiny_swin(version);
    EXPECT_TORCH_ERROR("channels", swin(fp::zeros({1, 4, 16, 16})));
    // An unbatched image reaches Permute([0, 2, 3, 1]) with three dimensions.
    EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "", swin(fp::zeros({3, 16, 16})));
    // Smaller than a patch: nothing left to attend over.
    EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "", swin(fp::zeros({1, 3, 2, 2})));
  }
}

TEST(VisionModels, SwinRefusesBadOptions) {
  using models::SwinVersion;
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "the heads must divide the channels",
                  models::ShiftedWindowAttention(8, {2, 2}, {0, 0}, 3));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "windows need sides of at least 2",
                  models::ShiftedWindowAttention(8, {1, 2}, {0, 0}, 2, SwinVersion::V2));
  EXPECT_NO_THROW(models::ShiftedWindowAttention(8, {1, 2}, {0, 0}, 2, SwinVersion::V1));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "depths and num_heads need one entry per stage",
                  models::SwinTransformer({4, 4}, 8, {1, 1}, {2}, {2, 2}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "depths and num_heads need one entry per stage",
                  models::SwinTransformer({4, 4}, 8, {}, {}, {2, 2}));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument, "",
      models::SwinTransformer({4, 4}, 8, {1}, {2}, {2, 2}, SwinVersion::V1, {.num_classes = -1}));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument, "dropout probability has to be between 0 and 1",
      models::SwinTransformer({4, 4}, 8, {1}, {2}, {2, 2}, SwinVersion::V1, {.dropout = 2.0}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "dropout probability has to be between 0 and 1",
                  models::SwinTransformer({4, 4}, 8, {1}, {2}, {2, 2}, SwinVersion::V2,
                                          {.attention_dropout = -0.5}));
  // The buffers are torchvision's whatever the device: V2's table on the meta
  // device has its shape; the index is the same on both versions.
  const models::ShiftedWindowAttention v1(8, {3, 4}, {0, 0}, 2);
  const models::ShiftedWindowAttention v2(8, {3, 4}, {0, 0}, 2, SwinVersion::V2);
  EXPECT_TRUE(v1.relative_position_index.is_equal(v2.relative_position_index));
  EXPECT_EQ(v2.relative_coords_table.sizes().size(), 4u);
  EXPECT_EQ(v2.relative_coords_table.size(1), 5);
  EXPECT_EQ(v2.relative_coords_table.size(2), 7);
  EXPECT_EQ(v1.relative_position_bias_table.size(0), 5 * 7);
}

}  // namespace
