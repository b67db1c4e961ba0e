// fp::vision::ops' layers against torchvision's with seeded random
// parameters and buffers, bit for bit: FrozenBatchNorm2d,
// Conv2dNormActivation (three norm and activation choices),
// FeaturePyramidNetwork (LastLevelMaxPool; LastLevelP6P7 from C5 and from
// P5) and MultiScaleRoIAlign over three maps.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "flash_powder/vision/vision.h"
#include "support/expect_error.h"
#include "vision/ops_truth.h"

namespace {

namespace ops = fp::vision::ops;
using fp_test::bit_equal;

/// make_ops_truth.py's layers-CAP/NAME.safetensors: the module's state dict.
fp::StateDict state_of(const std::string& name) {
  const std::filesystem::path file = std::filesystem::path(FP_VISION_OPS_TRUTH_DIR) /
                                     ("layers-" + std::string(fp::torch_cpu_capability())) /
                                     (name + ".safetensors");
  return fp::safetensors::load(file.string());
}

/// The keys sorted (safetensors files keep them sorted).
std::vector<std::string> sorted(std::vector<std::string> keys) {
  std::sort(keys.begin(), keys.end());
  return keys;
}
std::vector<std::string> keys_of(fp::nn::ModuleBase& module) {
  return sorted(module.state_dict().keys());
}

TEST(VisionLayers, FrozenBatchNorm2dEqualsTorchvision) {
  const fp::StateDict results = fp_test::ops_truth("layers");
  ops::FrozenBatchNorm2d norm(8, 1e-3);
  EXPECT_EQ(keys_of(norm), sorted(state_of("frozen").keys()));
  norm.load_state_dict(state_of("frozen"));
  EXPECT_TRUE(bit_equal(norm(results.at("frozen.input")), results.at("frozen.output")));
}

TEST(VisionLayers, Conv2dNormActivationEqualsTorchvision) {
  const fp::StateDict results = fp_test::ops_truth("layers");
  const auto check = [&](const std::string& name, ops::Conv2dNormActivation block) {
    EXPECT_EQ(keys_of(block), sorted(state_of(name).keys())) << name;
    block.load_state_dict(state_of(name));
    EXPECT_TRUE(bit_equal(block(results.at(name + ".input")), results.at(name + ".output")))
        << name;
  };
  check("cna_batch_norm",
        ops::Conv2dNormActivation(
            4, 8, 3,
            {.stride = 2, .norm_eps = 1e-3, .activation_layer = ops::ActivationLayer::Hardswish}));
  check("cna_frozen", ops::Conv2dNormActivation(4, 8, 3,
                                                {.groups = 2,
                                                 .norm_layer = ops::NormLayer::FrozenBatchNorm2d,
                                                 .activation_layer = ops::ActivationLayer::ReLU6,
                                                 .dilation = 2}));
  check("cna_plain", ops::Conv2dNormActivation(4, 8, 1,
                                               {.padding = 0,
                                                .norm_layer = ops::NormLayer::None,
                                                .activation_layer = ops::ActivationLayer::SiLU}));
}

void check_pyramid(const std::string& name, ops::FeaturePyramidNetwork fpn,
                   const std::vector<std::string>& output_names) {
  const fp::StateDict results = fp_test::ops_truth("layers");
  EXPECT_EQ(keys_of(fpn), sorted(state_of(name).keys())) << name;
  fpn.load_state_dict(state_of(name));
  ops::FeatureMaps x;
  for (const char* level : {"0", "1", "2"})
    x.emplace_back(level, results.at(name + ".input." + level));
  const ops::FeatureMaps out = fpn(x);
  ASSERT_EQ(out.size(), output_names.size()) << name;
  for (std::size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i].first, output_names[i]) << name;
    EXPECT_TRUE(bit_equal(out[i].second, results.at(name + ".output." + output_names[i])))
        << name << " " << i;
  }
}

TEST(VisionLayers, FeaturePyramidNetworkEqualsTorchvision) {
  check_pyramid(
      "fpn_pool",
      ops::FeaturePyramidNetwork({4, 8, 16}, 8, {.extra_blocks = ops::LastLevelMaxPool()}),
      {"0", "1", "2", "pool"});
  check_pyramid("fpn_p6p7",
                ops::FeaturePyramidNetwork({4, 8, 16}, 8,
                                           {.extra_blocks = ops::LastLevelP6P7(16, 8),
                                            .norm_layer = ops::NormLayer::BatchNorm2d}),
                {"0", "1", "2", "p6", "p7"});
  check_pyramid(
      "fpn_p5",
      ops::FeaturePyramidNetwork({4, 8, 8}, 8, {.extra_blocks = ops::LastLevelP6P7(8, 8)}),
      {"0", "1", "2", "p6", "p7"});
}

TEST(VisionLayers, MultiScaleRoIAlignEqualsTorchvision) {
  const fp::StateDict results = fp_test::ops_truth("kernels");
  ops::FeatureMaps maps;
  for (const char* name : {"feat1", "feat2", "feat3"})
    maps.emplace_back(name, results.at(std::string("multiscale.map.") + name));
  const std::vector<fp::TensorView> boxes = {results.at("multiscale.boxes0"),
                                             results.at("multiscale.boxes1")};
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {{200, 256}, {190, 240}};
  const ops::MultiScaleRoIAlign all({"feat1", "feat2", "feat3"}, 7, 2);
  EXPECT_TRUE(bit_equal(all(maps, boxes, shapes), results.at("multiscale.all")));
  const ops::MultiScaleRoIAlign two({"feat3", "feat1"}, {3, 5}, -1);
  EXPECT_TRUE(bit_equal(two(maps, boxes, shapes), results.at("multiscale.two")));
  const ops::MultiScaleRoIAlign one({"feat2"}, 4, 0);
  EXPECT_TRUE(bit_equal(one(maps, boxes, shapes), results.at("multiscale.one")));
}

TEST(VisionLayers, BadInputIsRefused) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "FeaturePyramidNetwork: in_channels=0 is currently not supported",
                  ops::FeaturePyramidNetwork({4, 0}, 8));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "FeaturePyramidNetwork: in_channels_list is empty",
                  ops::FeaturePyramidNetwork({}, 8));
  const ops::FeaturePyramidNetwork fpn({4, 8}, 8);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "FeaturePyramidNetwork: got 1 feature maps for 2 levels",
                  fpn(ops::FeatureMaps{{"0", fp::zeros({1, 4, 8, 8})}}));
  const ops::MultiScaleRoIAlign pooler({"a"}, 7, 2);
  const std::vector<fp::TensorView> boxes = {fp::zeros({1, 4})};
  using Shapes = std::vector<std::pair<std::int64_t, std::int64_t>>;
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "MultiScaleRoIAlign: none of featmap_names is among the feature maps",
      pooler(ops::FeatureMaps{{"b", fp::zeros({1, 4, 8, 8})}}, boxes, Shapes{{32, 32}}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "MultiScaleRoIAlign: images list should not be empty",
                  pooler(ops::FeatureMaps{{"a", fp::zeros({1, 4, 8, 8})}}, boxes, Shapes{}));
  ops::FrozenBatchNorm2d norm(4);
  EXPECT_ANY_THROW(norm(fp::zeros({1, 3, 2, 2})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "",
                  ops::Conv2dNormActivation(4, 8, 3, {.groups = 3}));
}

}  // namespace
