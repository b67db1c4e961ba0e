// fp::vision::models' transformers (ViT, Swin, MaxViT): builders by name, bad input
// and bad options, and the buffers they compute. Their outputs and keys
// against torchvision are test_models.cpp's Torchvision/ModelTest and
// KeysOnlyTest cases.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>
#include <flash_powder/vision/models.h>
#include <flash_powder/vision/ops/permute.h>

#include "support/expect_error.h"

namespace {

namespace models = fp::vision::models;

TEST(VisionModels, TransformersByName) {
  const fp::nn::DefaultDevice meta(fp::Device::meta());
  for (const char* name : {"vit_b_16", "vit_b_32", "vit_l_16", "vit_l_32", "vit_h_14", "swin_t",
                           "swin_s", "swin_b", "swin_v2_t", "swin_v2_s", "swin_v2_b", "maxvit_t"}) {
    // MaxVit's dropouts are mlp_dropout and attention_dropout, as torchvision's.
    const std::unique_ptr<fp::nn::Module> net = models::make(
        name, {.num_classes = 3,
               .dropout = std::string_view(name) == "maxvit_t" ? std::nullopt
                                                               : std::optional<double>(0.1)});
    // The head is last: [num_classes] or [num_classes, features].
    const fp::StateDictView state = net->state_dict();
    EXPECT_EQ(state.at(state.keys().back()).size(0), 3) << name;
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
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "conv_stem_configs[1] needs positive out_channels, kernel_size and stride",
      models::VisionTransformer(
          4, 1, 2, 12, 20,
          {.image_size = 16,
           .conv_stem_configs = std::vector<models::ConvStemConfig>{{8, 3, 2}, {8, 3, 0}}}));
  // A stem whose strides do not make the patch size: torchvision's reshape error.
  const models::VisionTransformer unfit(
      4, 1, 2, 12, 20,
      {.image_size = 16, .conv_stem_configs = std::vector<models::ConvStemConfig>{{8, 3, 2}}});
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "", unfit(fp::zeros({1, 3, 16, 16})));
}

TEST(VisionModels, MakePassesTheImageSizes) {
  const fp::nn::DefaultDevice meta(fp::Device::meta());
  const auto pos_embedding = [](const std::unique_ptr<fp::nn::Module>& net) {
    return net->state_dict().at("encoder.pos_embedding").size(1);
  };
  EXPECT_EQ(pos_embedding(models::make("vit_b_16", {.image_size = 384})), 24 * 24 + 1);
  EXPECT_EQ(pos_embedding(models::make("vit_h_14", {.image_size = 518})), 37 * 37 + 1);
  // input_size reaches MaxViT's checks of its blocks' sizes.
  EXPECT_NE(models::make("maxvit_t", {.input_size = std::array<std::int64_t, 2>{448, 448}}),
            nullptr);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "is not divisible by partition size 7",
                  models::make("maxvit_t", {.input_size = std::array<std::int64_t, 2>{100, 100}}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "resnet18 has no image_size option",
                  models::make("resnet18", {.image_size = 224}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "vit_b_16 has no input_size option",
                  models::make("vit_b_16", {.input_size = std::array<std::int64_t, 2>{224, 224}}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "Input shape indivisible by patch size!",
                  models::make("vit_b_32", {.image_size = 200}));
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
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "drop probability has to be between 0 and 1, but got 1.5",
                  models::swin_t({.stochastic_depth_prob = 1.5}));
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

/// The smallest MaxVit: one block of one layer at 8x8 (2x2 windows, a 1x1 grid).
models::MaxVit tiny_maxvit() {
  return models::MaxVit(4, 2, {4}, {1}, 2, {.num_classes = 3, .input_size = {8, 8}});
}

TEST(VisionModels, MaxVitRefusesBadInput) {
  const models::MaxVit maxvit = tiny_maxvit();
  EXPECT_TORCH_ERROR("channels", maxvit(fp::zeros({1, 4, 8, 8})));
  // Made for 8x8: the partitions of a larger map do not fit its grid.
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "", maxvit(fp::zeros({1, 3, 16, 16})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected 4D input (got 3D input)",
                  maxvit(fp::zeros({3, 8, 8})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "maxvit_t has no dropout option",
                  models::make("maxvit_t", {.dropout = 0.1}));
}

TEST(VisionModels, MaxVitRefusesBadOptions) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "Input size (4, 4) of block 0 is not divisible by partition size 3",
                  models::MaxVit(4, 3, {4}, {1}, 2, {.input_size = {16, 16}}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "block input sizes: [(56, 56), (28, 28)]",
                  models::MaxVit(4, 8, {4, 8}, {1, 1}, 2));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "need one entry per block",
                  models::MaxVit(4, 2, {4, 8}, {1}, 2, {.input_size = {16, 16}}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "feat_dim: 4 must be divisible by head_dim: 3",
                  models::MaxVit(4, 2, {4}, {1}, 3, {.input_size = {8, 8}}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "partition_type must be either 'grid' or 'window'",
                  models::PartitionAttentionLayer(4, 2, 2, "row", {4, 4}, 4, 0.0, 0.0));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "Grid size must be divisible by partition size",
                  models::PartitionAttentionLayer(4, 2, 3, "window", {4, 4}, 4, 0.0, 0.0));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "",
                  models::MaxVit(4, 2, {4}, {1}, 2, {.num_classes = -1, .input_size = {8, 8}}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "dropout probability has to be between 0 and 1",
                  models::MaxVit(4, 2, {4}, {1}, 2, {.input_size = {8, 8}, .mlp_dropout = 2.0}));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument, "drop probability has to be between 0 and 1, but got -0.5",
      models::MaxVit(4, 2, {4}, {1}, 2, {.input_size = {8, 8}, .stochastic_depth_prob = -0.5}));
  // input_size reaches the grids: 448x448 images make maps twice as large.
  const fp::nn::DefaultDevice meta(fp::Device::meta());
  EXPECT_EQ(models::maxvit_t({.input_size = {448, 448}})
                .get_submodule<models::MaxVitBlock>("blocks.3")
                .grid_size[0],
            14);
}

TEST(VisionOps, PermuteIsTorchvisionsPermute) {
  // torchvision.ops.Permute([0, 2, 3, 1]) returns x.permute(...): the same
  // memory with permuted strides, which the layers after it see.
  const fp::Tensor x = fp::arange(24, fp::DType::F32).reshape({1, 2, 3, 4});
  const fp::Tensor y = fp::vision::ops::Permute({0, 2, 3, 1})(x);
  const fp::TensorView permuted = x.permute({0, 2, 3, 1});
  const auto list = [](std::span<const std::int64_t> values) {
    return std::vector<std::int64_t>(values.begin(), values.end());
  };
  EXPECT_EQ(list(y.sizes()), list(permuted.sizes()));
  EXPECT_EQ(list(y.strides()), list(permuted.strides()));
  EXPECT_TRUE(y.is_equal(permuted));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "", fp::vision::ops::Permute({0, 1})(x));
}

/// The buffers the networks compute for themselves (Swin's and MaxViT's
/// relative position indices, Swin V2's log-spaced coordinates) are
/// torchvision's, bit for bit: those make_models.py saved (NAME.buffers.safetensors).
TEST(VisionTransformerBuffers, EqualTorchvisions) {
  const fp::nn::SkipInit skip;  // the parameters' values do not matter here
  const std::pair<const char*, std::unique_ptr<fp::nn::Module>> networks[] = {
      {"swin_t", std::make_unique<models::SwinTransformer>(models::swin_t())},
      {"swin_v2_t", std::make_unique<models::SwinTransformer>(models::swin_v2_t())},
      {"maxvit_t", std::make_unique<models::MaxVit>(models::maxvit_t())},
  };
  for (const auto& [name, network] : networks) {
    const fp::StateDict saved = fp::safetensors::load(std::filesystem::path(FP_VISION_MODEL_DIR) /
                                                      (std::string(name) + ".buffers.safetensors"));
    int compared = 0;
    for (const auto& [key, tensor] : network->state_dict()) {
      if (key.find("relative_position_index") == std::string::npos &&
          key.find("relative_coords_table") == std::string::npos)
        continue;
      EXPECT_TRUE(tensor.is_equal(saved.at(key))) << name << " " << key;
      ++compared;
    }
    EXPECT_GT(compared, 0) << name;
  }
}

}  // namespace
