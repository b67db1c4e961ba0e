// fp::vision::models against torchvision: the same state-dict keys, and the
// same outputs bit for bit for seeded random weights and inputs (batch 1 and
// 2), written by tests/vision/make_models.py when the tests run. The later
// families' (ConvNeXt on) refusals of bad input and options: test_model_refusals.cpp;
// the transformers' other tests: test_transformers.cpp.
// Why this file is long: it is the one table of every classifier torchvision has
// and the checks they share.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>
#include <flash_powder/vision/models.h>

#include "support/expect_error.h"
#include "vision/model_files.h"

namespace {

namespace models = fp::vision::models;
namespace fs = std::filesystem;

using vision_test::expected_keys;
using vision_test::kModelDir;
using vision_test::lines_of;

struct ModelCase {
  std::string name;
  std::function<std::unique_ptr<fp::nn::Module>()> make;
};

// GoogleTest prints a parameter it cannot name byte by byte, padding and
// all (uninitialised memory to valgrind); the name says everything.
void PrintTo(const ModelCase& model_case, std::ostream* out) {
  *out << model_case.name;
}

template <class Model, class Options>
std::function<std::unique_ptr<fp::nn::Module>()> maker(Model (*factory)(const Options&),
                                                       Options options = {}) {
  return [factory, options] { return std::make_unique<Model>(factory(options)); };
}

/// A ResNet of one Bottleneck per stage: the blocks of the largest ResNeXt
/// and Wide ResNet builders (whose seeded weights take tens of seconds to
/// write), whose keys KeysOnlyTest compares.
std::function<std::unique_ptr<fp::nn::Module>()> shallow_resnet(models::ResNetOptions options) {
  return [options] {
    return std::make_unique<models::ResNet>(models::ResNetBlock::Bottleneck,
                                            std::array<std::int64_t, 4>{1, 1, 1, 1}, options);
  };
}

/// Whether to run the deeper variants too (vgg13-19, resnet101/152), each up
/// to half a gigabyte of weights written and read per run, using no op their
/// shallower siblings lack. The lanes that force a CPU capability
/// (scripts/test --cpu, valgrind) and the sanitizer lane (FP_TEST_SHALLOW_MODELS)
/// leave them out; the native lane runs them all.
bool every_depth() {
  return !vision_test::shallow_lane();
}

/// A network of the largest builders (their keys only) made on the meta
/// device, as make_models.py makes torchvision's: no memory, no initial values.
template <class Model, class Options>
std::function<std::unique_ptr<fp::nn::Module>()> on_meta(Model (*factory)(const Options&)) {
  return [factory] {
    const fp::nn::DefaultDevice meta(fp::Device::meta());
    return std::make_unique<Model>(factory({}));
  };
}

/// A small VisionTransformer (make_models.py's vit_small*): ViT's blocks.
std::function<std::unique_ptr<fp::nn::Module>()> small_vit(
    std::array<std::int64_t, 5> sizes, models::VisionTransformerOptions options) {
  return [sizes, options] {
    return std::make_unique<models::VisionTransformer>(sizes[0], sizes[1], sizes[2], sizes[3],
                                                       sizes[4], options);
  };
}

/// A small SwinTransformer of either version (make_models.py's swin*_small).
std::function<std::unique_ptr<fp::nn::Module>()> small_swin(models::SwinVersion version) {
  return [version] {
    return std::make_unique<models::SwinTransformer>(
        std::array<std::int64_t, 2>{4, 4}, 8, std::vector<std::int64_t>{2, 2, 2},
        std::vector<std::int64_t>{2, 2, 4}, std::array<std::int64_t, 2>{3, 4}, version,
        models::SwinTransformerOptions{.num_classes = 10,
                                       .mlp_ratio = 2.0,
                                       .dropout = 0.1,
                                       .attention_dropout = 0.1,
                                       .stochastic_depth_prob = 0.1});
  };
}

std::vector<ModelCase> deep_models() {
  if (!every_depth()) return {};
  return {
      {"vgg13", maker(&models::vgg13)},         {"vgg13_bn", maker(&models::vgg13_bn)},
      {"vgg16", maker(&models::vgg16)},         {"vgg16_bn", maker(&models::vgg16_bn)},
      {"vgg19", maker(&models::vgg19)},         {"vgg19_bn", maker(&models::vgg19_bn)},
      {"resnet101", maker(&models::resnet101)}, {"resnet152", maker(&models::resnet152)},
  };
}

std::vector<ModelCase> all_models() {
  std::vector<ModelCase> cases{
      {"vgg11", maker(&models::vgg11)},
      {"vgg11_bn", maker(&models::vgg11_bn)},
      {"resnet18", maker(&models::resnet18)},
      {"resnet34", maker(&models::resnet34)},
      {"resnet50", maker(&models::resnet50)},
      {"resnet18_classes10", maker(&models::resnet18, models::ResNetOptions{.num_classes = 10})},
      {"mobilenet_v3_small", maker(&models::mobilenet_v3_small)},
      {"mobilenet_v3_small_classes10",
       maker(&models::mobilenet_v3_small, models::MobileNetV3Options{.num_classes = 10})},
      {"alexnet", maker(&models::alexnet)},
      {"squeezenet1_0", maker(&models::squeezenet1_0)},
      {"squeezenet1_1", maker(&models::squeezenet1_1)},
      {"squeezenet1_1_classes10",
       maker(&models::squeezenet1_1, models::SqueezeNetOptions{.num_classes = 10})},
      {"mobilenet_v2", maker(&models::mobilenet_v2)},
      {"mobilenet_v2_width075",
       maker(&models::mobilenet_v2,
             models::MobileNetV2Options{.num_classes = 10, .width_mult = 0.75})},
      {"mobilenet_v3_large", maker(&models::mobilenet_v3_large)},
      {"shufflenet_v2_x0_5", maker(&models::shufflenet_v2_x0_5)},
      {"shufflenet_v2_x1_0", maker(&models::shufflenet_v2_x1_0)},
      {"shufflenet_v2_x1_5", maker(&models::shufflenet_v2_x1_5)},
      {"shufflenet_v2_x2_0", maker(&models::shufflenet_v2_x2_0)},
      {"shufflenet_v2_x0_5_classes10",
       maker(&models::shufflenet_v2_x0_5, models::ShuffleNetV2Options{.num_classes = 10})},
      {"densenet121", maker(&models::densenet121)},
      {"densenet161", maker(&models::densenet161)},
      {"densenet_small_options",
       [] {
         return std::make_unique<models::DenseNet>(
             12, std::vector<std::int64_t>{2, 3, 2}, 16,
             models::DenseNetOptions{
                 .num_classes = 10, .bn_size = 2, .drop_rate = 0.2, .memory_efficient = true});
       }},
      {"mnasnet0_5", maker(&models::mnasnet0_5)},
      {"mnasnet0_75", maker(&models::mnasnet0_75)},
      {"mnasnet1_0", maker(&models::mnasnet1_0)},
      {"mnasnet1_3", maker(&models::mnasnet1_3)},
      {"mnasnet0_5_classes10",
       maker(&models::mnasnet0_5, models::MNASNetOptions{.num_classes = 10, .dropout = 0.5})},
      {"googlenet", maker(&models::googlenet)},
      {"googlenet_transform_input",
       maker(&models::googlenet,
             models::GoogLeNetOptions{
                 .num_classes = 10, .aux_logits = false, .transform_input = true})},
      {"resnext50_32x4d", maker(&models::resnext50_32x4d)},
      {"resnext_32x8d_shallow", shallow_resnet({.groups = 32, .width_per_group = 8})},
      {"resnext_64x4d_shallow", shallow_resnet({.groups = 64, .width_per_group = 4})},
      {"wide_resnet_2_shallow", shallow_resnet({.width_per_group = 128})},
      {"convnext_tiny", maker(&models::convnext_tiny)},
      {"convnext_small_options",
       [] {
         return std::make_unique<models::ConvNeXt>(
             std::vector<models::CNBlockConfig>{{32, 64, 1}, {64, 128, 2}, {128, std::nullopt, 1}},
             models::ConvNeXtOptions{
                 .num_classes = 10, .stochastic_depth_prob = 0.2, .layer_scale = 0.5});
       }},
      {"efficientnet_b0", maker(&models::efficientnet_b0)},
      {"efficientnet_v2_s", maker(&models::efficientnet_v2_s)},
      {"efficientnet_small_options",
       [] {
         using Config = models::MBConvConfig;
         return std::make_unique<models::EfficientNet>(
             std::vector<Config>{{1, 3, 1, 16, 16, 1, true},
                                 {4, 3, 2, 16, 24, 1, true},
                                 Config::scaled(4, 3, 2, 24, 32, 2, 1.1, 1.2),
                                 {6, 5, 1, 32, 40, 1}},
             0.3, 0.1, 10, 1e-3, 64);
       }},
      {"inception_v3_transform_input",
       maker(&models::inception_v3,
             models::Inception3Options{
                 .num_classes = 10, .aux_logits = false, .transform_input = true, .dropout = 0.3})},
      {"regnet_y_400mf", maker(&models::regnet_y_400mf)},
      {"regnet_x_400mf", maker(&models::regnet_x_400mf)},
      {"regnet_small_options",
       [] {
         return std::make_unique<models::RegNet>(
             models::BlockParams::from_init_params(5, 16, 10.0, 2.0, 8, 0.75, 0.25),
             models::RegNetOptions{.num_classes = 10, .stem_width = 16});
       }},
      // patch_size, num_layers, num_heads, hidden_dim, mlp_dim
      {"vit_small", small_vit({8, 2, 2, 16, 32}, {.image_size = 32})},
      {"vit_small_options", small_vit({4, 1, 1, 12, 20}, {.num_classes = 10,
                                                          .image_size = 16,
                                                          .dropout = 0.1,
                                                          .attention_dropout = 0.2,
                                                          .representation_size = 24})},
      {"vit_small_conv_stem",
       small_vit({4, 1, 2, 12, 20},
                 {.num_classes = 10,
                  .image_size = 16,
                  .conv_stem_configs = std::vector<models::ConvStemConfig>{{8, 3, 2}, {6, 3, 2}}})},
      {"swin_t", maker(&models::swin_t)},
      {"swin_v2_t", maker(&models::swin_v2_t)},
      {"swin_small", small_swin(models::SwinVersion::V1)},
      {"swin_v2_small", small_swin(models::SwinVersion::V2)},
      {"maxvit_t", maker(&models::maxvit_t)},
      {"maxvit_small_options",
       [] {
         return std::make_unique<models::MaxVit>(8, 2, std::vector<std::int64_t>{8, 16},
                                                 std::vector<std::int64_t>{1, 2}, 4,
                                                 models::MaxVitOptions{.num_classes = 10,
                                                                       .input_size = {32, 32},
                                                                       .stochastic_depth_prob = 0.1,
                                                                       .squeeze_ratio = 0.5,
                                                                       .expansion_ratio = 2,
                                                                       .mlp_ratio = 2,
                                                                       .mlp_dropout = 0.1,
                                                                       .attention_dropout = 0.1});
       }},
  };
  for (ModelCase& deep : deep_models())
    cases.push_back(std::move(deep));
  return cases;
}

/// One of deep_models().
bool is_deep(const std::string& name) {
  return std::ranges::any_of(deep_models(),
                             [&](const ModelCase& deep) { return deep.name == name; });
}

/// Whether the test writes the network's weights and removes them after
/// (make_models.py's LARGE).
bool is_large(const std::string& name) {
  return name.starts_with("vgg") || name == "alexnet";
}

fs::path weights_of(const std::string& name) {
  return kModelDir / (name + ".safetensors");
}

fs::path outputs_of(const std::string& name) {
  return kModelDir / (name + ".io-" + std::string(fp::torch_cpu_capability()) + ".safetensors");
}

/// VGG's and AlexNet's weights are a quarter to half a gigabyte each, too
/// much to keep: their test writes them (make_models.py) and removes them after.
void make_weights(const std::string& name) {
  const std::string command =
      "\"" FP_TEST_PYTHON "\" \"" FP_VISION_MAKE_MODELS "\" \"" + kModelDir.string() + "\" " + name;
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
}

class ModelTest : public testing::TestWithParam<ModelCase> {};

TEST_P(ModelTest, KeysAndOutputsEqualTorchvision) {
  const ModelCase& model_case = GetParam();
  if (!every_depth() && vision_test::native_only(model_case.name))
    GTEST_SKIP() << "a full-size network whose blocks a smaller case runs: the native lane's";
  if (is_large(model_case.name)) make_weights(model_case.name);
  ASSERT_TRUE(fs::exists(weights_of(model_case.name))) << weights_of(model_case.name);
  std::unique_ptr<fp::nn::Module> model = model_case.make();

  EXPECT_EQ(model->state_dict().keys(), expected_keys(model_case.name));
  {
    const auto weights = fp::safetensors::MappedFile::open(weights_of(model_case.name));
    model->load_state_dict(weights);
  }
  if (is_large(model_case.name)) fs::remove(weights_of(model_case.name));

  const fp::StateDict io = fp::safetensors::load(outputs_of(model_case.name));
  for (const char* batch : {"1", "2"}) {
    const fp::Tensor output = (*model)(io.at(std::string("input") + batch));
    const fp::Tensor& expected = io.at(std::string("output") + batch);
    EXPECT_EQ(output.sizes().size(), 2u);
    EXPECT_TRUE(output.is_equal(expected))
        << model_case.name << " batch " << batch << ": max |delta| "
        << (output - expected).abs().max().item<float>();
  }

  // make_models.py's FLOAT64 networks: in float64 too, as `model.double()`.
  if (io.contains("output1_f64")) {
    std::unique_ptr<fp::nn::Module> wide = model_case.make();
    wide->load_state_dict(fp::safetensors::MappedFile::open(weights_of(model_case.name)));
    wide->to(fp::DType::F64);
    for (const char* batch : {"1", "2"}) {
      const fp::Tensor output = (*wide)(io.at(std::string("input") + batch).to(fp::DType::F64));
      const fp::Tensor& expected = io.at(std::string("output") + batch + "_f64");
      EXPECT_EQ(output.dtype(), fp::DType::F64);
      EXPECT_TRUE(output.is_equal(expected))
          << model_case.name << " float64, batch " << batch << ": max |delta| "
          << (output - expected).abs().max().item<double>();
    }
  }

  // Optimised for inference: oneDNN's fused kernels with BatchNorm folded in
  // round differently from eager PyTorch (tests/nn/test_optimize.cpp checks
  // them against frozen Inductor bit for bit); measured here, the largest
  // difference is below 1e-5 of the largest logit. Batch 2 of the shallower
  // models only: the deeper ones fuse nothing their siblings do not (it
  // costs the suite a few seconds, printed).
  if (is_deep(model_case.name)) return;
  const auto start = std::chrono::steady_clock::now();
  const fp::nn::OptimizeReport report = fp::nn::optimize_for_inference(*model);
  EXPECT_FALSE(report.fused.empty());
  EXPECT_TRUE(report.unchanged.empty()) << report.unchanged.front();
  const fp::Tensor output = (*model)(io.at("input2"));
  const fp::Tensor& expected = io.at("output2");
  const double delta = (output - expected).abs().max().item<double>();
  const double scale = expected.abs().max().item<double>();
  EXPECT_LT(delta, 1e-5 * scale) << model_case.name << " optimised: max |delta| " << delta
                                 << " on logits up to " << scale;
  std::cout << model_case.name << " optimised: max |delta| " << delta << " (relative "
            << delta / scale << ") from torchvision, checked in "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
            << " s\n";
}

/// The largest builders (make_models.py's KEYS_ONLY): torchvision's keys,
/// made on the meta device; their forward runs in the "_shallow" networks
/// (densenet169's and densenet201's in densenet121).
class KeysOnlyTest : public testing::TestWithParam<ModelCase> {};

TEST_P(KeysOnlyTest, KeysEqualTorchvision) {
  const ModelCase& model_case = GetParam();
  const std::vector<std::string> keys = expected_keys(model_case.name);
  ASSERT_FALSE(keys.empty()) << model_case.name;
  const std::unique_ptr<fp::nn::Module> model = model_case.make();
  EXPECT_EQ(model->state_dict().keys(), keys);
  // And their shapes, as make_models.py writes them ("key [2, 3]").
  std::vector<std::string> shapes;
  for (const auto& [key, tensor] : model->state_dict()) {
    std::string sizes;
    for (const std::int64_t size : tensor.sizes())
      sizes += (sizes.empty() ? "" : ", ") + std::to_string(size);
    shapes.push_back(key + " [" + sizes + "]");
  }
  EXPECT_EQ(shapes, lines_of(model_case.name + ".shapes"));
}

INSTANTIATE_TEST_SUITE_P(
    Torchvision, KeysOnlyTest,
    testing::Values(ModelCase{"resnext101_32x8d", on_meta(&models::resnext101_32x8d)},
                    ModelCase{"resnext101_64x4d", on_meta(&models::resnext101_64x4d)},
                    ModelCase{"wide_resnet50_2", on_meta(&models::wide_resnet50_2)},
                    ModelCase{"wide_resnet101_2", on_meta(&models::wide_resnet101_2)},
                    ModelCase{"densenet169", on_meta(&models::densenet169)},
                    ModelCase{"densenet201", on_meta(&models::densenet201)},
                    ModelCase{"convnext_small", on_meta(&models::convnext_small)},
                    ModelCase{"convnext_base", on_meta(&models::convnext_base)},
                    ModelCase{"convnext_large", on_meta(&models::convnext_large)},
                    ModelCase{"efficientnet_b1", on_meta(&models::efficientnet_b1)},
                    ModelCase{"efficientnet_b2", on_meta(&models::efficientnet_b2)},
                    ModelCase{"efficientnet_b3", on_meta(&models::efficientnet_b3)},
                    ModelCase{"efficientnet_b4", on_meta(&models::efficientnet_b4)},
                    ModelCase{"efficientnet_b5", on_meta(&models::efficientnet_b5)},
                    ModelCase{"efficientnet_b6", on_meta(&models::efficientnet_b6)},
                    ModelCase{"efficientnet_b7", on_meta(&models::efficientnet_b7)},
                    ModelCase{"efficientnet_v2_m", on_meta(&models::efficientnet_v2_m)},
                    ModelCase{"efficientnet_v2_l", on_meta(&models::efficientnet_v2_l)},
                    ModelCase{"inception_v3", on_meta(&models::inception_v3)},
                    ModelCase{"regnet_y_800mf", on_meta(&models::regnet_y_800mf)},
                    ModelCase{"regnet_y_1_6gf", on_meta(&models::regnet_y_1_6gf)},
                    ModelCase{"regnet_y_3_2gf", on_meta(&models::regnet_y_3_2gf)},
                    ModelCase{"regnet_y_8gf", on_meta(&models::regnet_y_8gf)},
                    ModelCase{"regnet_y_16gf", on_meta(&models::regnet_y_16gf)},
                    ModelCase{"regnet_y_32gf", on_meta(&models::regnet_y_32gf)},
                    ModelCase{"regnet_x_800mf", on_meta(&models::regnet_x_800mf)},
                    ModelCase{"regnet_x_1_6gf", on_meta(&models::regnet_x_1_6gf)},
                    ModelCase{"regnet_x_3_2gf", on_meta(&models::regnet_x_3_2gf)},
                    ModelCase{"regnet_x_8gf", on_meta(&models::regnet_x_8gf)},
                    ModelCase{"regnet_x_16gf", on_meta(&models::regnet_x_16gf)},
                    ModelCase{"regnet_x_32gf", on_meta(&models::regnet_x_32gf)},
                    ModelCase{"regnet_y_128gf", on_meta(&models::regnet_y_128gf)},
                    ModelCase{"vit_b_16", on_meta(&models::vit_b_16)},
                    ModelCase{"vit_b_32", on_meta(&models::vit_b_32)},
                    ModelCase{"vit_l_16", on_meta(&models::vit_l_16)},
                    ModelCase{"vit_l_32", on_meta(&models::vit_l_32)},
                    ModelCase{"vit_h_14", on_meta(&models::vit_h_14)},
                    ModelCase{"swin_s", on_meta(&models::swin_s)},
                    ModelCase{"swin_b", on_meta(&models::swin_b)},
                    ModelCase{"swin_v2_s", on_meta(&models::swin_v2_s)},
                    ModelCase{"swin_v2_b", on_meta(&models::swin_v2_b)}),
    [](const testing::TestParamInfo<ModelCase>& info) { return info.param.name; });

/// On the GPU: the same network moved to CUDA against torchvision's on CUDA.
/// cuDNN picks its algorithms per process, so the comparison has a
/// tolerance: 1e-4 relative and absolute, on logits of magnitude ~1-10.
class CudaModelTest : public testing::TestWithParam<std::string> {};

TEST_P(CudaModelTest, OutputsEqualTorchvisionOnCuda) {
  if (!fp::cuda_is_available()) GTEST_SKIP() << "no CUDA device";
  const std::string name = GetParam();
  const fs::path outputs = kModelDir / (name + ".io-cuda.safetensors");
  ASSERT_TRUE(fs::exists(outputs)) << outputs << " (make_models.py writes it where CUDA exists)";
  std::unique_ptr<fp::nn::Module> model;
  for (const ModelCase& model_case : all_models())
    if (model_case.name == name) model = model_case.make();
  ASSERT_NE(model, nullptr) << name;
  model->load_state_dict(fp::safetensors::MappedFile::open(weights_of(name)));
  model->to(fp::TensorOptions().device(fp::Device::cuda(0)));

  const fp::StateDict io = fp::safetensors::load(outputs);
  const auto on = [](fp::Device device) { return fp::TensorOptions().device(device); };
  for (const char* batch : {"1", "2"}) {
    const fp::Tensor input = io.at(std::string("input") + batch).to(on(fp::Device::cuda(0)));
    const fp::Tensor output = (*model)(input);
    EXPECT_TRUE(output.device().is_cuda());
    const fp::Tensor on_cpu = output.to(on(fp::Device::cpu()));
    const fp::Tensor& expected = io.at(std::string("output") + batch);
    EXPECT_TRUE(on_cpu.allclose(expected, 1e-4, 1e-4))
        << name << " batch " << batch << ": max |delta| "
        << (on_cpu - expected).abs().max().item<float>();
  }
}

INSTANTIATE_TEST_SUITE_P(Torchvision, CudaModelTest,
                         testing::Values("resnet18", "resnet50", "mobilenet_v3_small"),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

INSTANTIATE_TEST_SUITE_P(Torchvision, ModelTest, testing::ValuesIn(all_models()),
                         [](const testing::TestParamInfo<ModelCase>& info) {
                           return info.param.name;
                         });

TEST(VisionModels, CheckpointProblemsAreReportedTogether) {
  fp::StateDict broken;
  for (const auto& [key, tensor] : fp::safetensors::load(weights_of("resnet18"))) {
    if (key == "fc.bias") continue;  // missing
    if (key == "layer2.0.conv1.weight")
      broken.insert(key, tensor.i(fp::slice(0, 64)).to_owned());  // misshaped
    else if (key == "bn1.running_mean")
      broken.insert(key, tensor.reshape({8, 8}));  // misshaped
    else
      broken.insert(key, tensor);
  }
  broken.insert("head.weight", fp::zeros({2}));  // unexpected
  auto model = models::resnet18();
  try {
    model.load_state_dict(broken);
    FAIL() << "load_state_dict accepted a broken checkpoint";
  } catch (const fp::Error& error) {
    const std::string message = error.what();
    for (const char* key : {"fc.bias", "layer2.0.conv1.weight", "bn1.running_mean", "head.weight"})
      EXPECT_NE(message.find(key), std::string::npos) << key << " not in: " << message;
  }
}

TEST(VisionModels, NumClassesShapesTheHead) {
  EXPECT_EQ(models::resnet50({.num_classes = 7}).fc.weight.size(0), 7);
  EXPECT_EQ(models::vgg11({.num_classes = 3}).state_dict().at("classifier.6.bias").size(0), 3);
  EXPECT_EQ(
      models::mobilenet_v3_small({.num_classes = 5}).state_dict().at("classifier.3.bias").size(0),
      5);
}

TEST(VisionModels, BadInputIsRefused) {
  auto model = models::resnet18({.num_classes = 10});
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "conv", model(fp::zeros({1, 4, 32, 32})));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "", model(fp::zeros({3, 3})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "", models::resnet18({.num_classes = -1}));
}

TEST(VisionModels, NewFamiliesRefuseBadInput) {
  // The networks are the smallest of their family or of their class (each
  // second of initialisation is a minute under valgrind).
  const models::DenseNet densenet(12, {2, 2, 2}, 16, {.num_classes = 3});
  models::GoogLeNet googlenet({.num_classes = 3, .aux_logits = false});
  // Wrong channels: the first convolution names the mismatch.
  EXPECT_TORCH_ERROR("channels", models::alexnet({.num_classes = 3})(fp::zeros({1, 4, 64, 64})));
  EXPECT_TORCH_ERROR("channels",
                     models::squeezenet1_0({.num_classes = 3})(fp::zeros({1, 1, 64, 64})));
  EXPECT_TORCH_ERROR("channels",
                     models::squeezenet1_1({.num_classes = 3})(fp::zeros({2, 4, 64, 64})));
  EXPECT_TORCH_ERROR("channels",
                     models::mobilenet_v2({.num_classes = 3})(fp::zeros({1, 4, 32, 32})));
  EXPECT_TORCH_ERROR("channels",
                     models::mobilenet_v3_large({.num_classes = 3})(fp::zeros({1, 1, 32, 32})));
  EXPECT_TORCH_ERROR("channels",
                     models::resnext50_32x4d({.num_classes = 3})(fp::zeros({1, 4, 32, 32})));
  EXPECT_TORCH_ERROR("channels",
                     models::shufflenet_v2_x0_5({.num_classes = 3})(fp::zeros({1, 4, 32, 32})));
  EXPECT_TORCH_ERROR("channels", densenet(fp::zeros({1, 4, 32, 32})));
  EXPECT_TORCH_ERROR("channels", models::mnasnet0_5({.num_classes = 3})(fp::zeros({1, 4, 32, 32})));
  EXPECT_TORCH_ERROR("channels", googlenet(fp::zeros({1, 4, 32, 32})));
  // Too small an image: a kernel or pooling window larger than what is left.
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "",
                  models::alexnet({.num_classes = 3})(fp::zeros({1, 3, 32, 32})));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "",
                  models::squeezenet1_0({.num_classes = 3})(fp::zeros({1, 3, 4, 4})));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "",
                  models::squeezenet1_1({.num_classes = 3})(fp::zeros({1, 3, 2, 2})));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "",
                  models::mobilenet_v2({.num_classes = 3})(fp::zeros({1, 3, 0, 0})));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "",
                  models::mobilenet_v3_large({.num_classes = 3})(fp::zeros({1, 3, 0, 0})));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "",
                  models::shufflenet_v2_x0_5({.num_classes = 3})(fp::zeros({1, 3, 0, 0})));
  // DenseNet's transitions pool 2x2: the last finds nothing left to pool
  // (densenet121's below torchvision's min_size of 29).
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "", densenet(fp::zeros({1, 3, 8, 8})));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "",
                  models::mnasnet0_5({.num_classes = 3})(fp::zeros({1, 3, 0, 0})));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "", googlenet(fp::zeros({1, 3, 8, 8})));
  // transform_input reads channels 0, 1 and 2 (a view of each).
  googlenet.transform_input = true;
  EXPECT_TORCH_ERROR("channels", googlenet(fp::zeros({1, 1, 32, 32})));
  // Not an image batch.
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "",
                  models::mobilenet_v2({.num_classes = 3})(fp::zeros({3, 3})));
}

TEST(VisionModels, NewFamiliesRefuseBadOptions) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "", models::squeezenet1_1({.num_classes = -1}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "", models::alexnet({.num_classes = -1}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "width_mult",
                  models::mobilenet_v2({.width_mult = 0.0}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "version should be 1_0 or 1_1",
                  models::SqueezeNet("1_2"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "illegal stride value 4",
                  models::ShuffleUnit(24, 24, 4));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "Invalid combination of stride 1, inp 24 and oup 48 values",
                  models::ShuffleUnit(24, 48, 1));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "illegal stride value 0",
                  models::ShuffleUnit(24, 48, 0));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "", models::shufflenet_v2_x0_5({.num_classes = -1}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "", models::densenet121({.num_classes = -1}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "dropout probability has to be between 0 and 1, but got 1.5",
                  models::densenet121({.drop_rate = 1.5}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "num_layers (-1) should not be negative",
                  models::DenseNet(32, {6, -1}));
  // memory_efficient (checkpointing, a training option) changes nothing.
  EXPECT_EQ(models::DenseNet(12, {2, 2}, 16, {.memory_efficient = true}).state_dict().keys(),
            models::DenseNet(12, {2, 2}, 16).state_dict().keys());
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "alpha should be greater than 0.0 instead of 0.0",
                  models::MNASNet(0.0));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "", models::mnasnet0_5({.num_classes = -1}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "dropout probability has to be between 0 and 1",
                  models::mnasnet0_5({.dropout = 2.0}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "stride should be 1 or 2 instead of 3",
                  models::MNASNetInvertedResidual(8, 8, 3, 3, 3));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "kernel_size should be 3 or 5 instead of 7",
                  models::MNASNetInvertedResidual(8, 8, 7, 1, 3));
  // GoogLeNet's options are checked by its layers (nn::Linear, nn::Dropout),
  // and aux_logits=false's keys by Torchvision/ModelTest.googlenet_transform_input.
  // The ResNeXt and Wide ResNet builders fix groups and width, as torchvision's.
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "groups is 32, not 8",
                  models::resnext50_32x4d({.groups = 8}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "width_per_group is 128, not 4",
                  models::wide_resnet50_2({.width_per_group = 4}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "BasicBlock only supports groups=1",
                  models::resnet18({.groups = 2}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "should be positive",
                  models::resnet50({.groups = 0}));
  EXPECT_EQ(
      models::resnext50_32x4d({.groups = 32}).layer1.state_dict().at("0.conv2.weight").size(1), 4);
}

/// The transformers: a hundred megabytes (Swin-T, MaxViT-T) to 2.5 GB (ViT-H) of
/// weights each; make() builds them on the meta device in TransformersByName.
bool is_transformer(const std::string& name) {
  return name.starts_with("vit_") || name.starts_with("swin_") || name.starts_with("maxvit");
}

TEST(VisionModels, MakeBuildsByTorchvisionName) {
  const std::unique_ptr<fp::nn::Module> net = models::make("squeezenet1_1", {.num_classes = 7});
  EXPECT_EQ(net->state_dict().at("classifier.1.bias").size(0), 7);
  EXPECT_EQ(net->state_dict().keys(),
            models::squeezenet1_1({.num_classes = 7}).state_dict().keys());
  const fp::Tensor logits = (*net)(fp::zeros({2, 3, 64, 64}));
  EXPECT_EQ(logits.dim(), 2);
  EXPECT_EQ(logits.size(0), 2);
  EXPECT_EQ(logits.size(1), 7);
  EXPECT_NO_THROW(models::make("mobilenet_v2", {.dropout = 0.1}));
  // Every builder by name, but the largest (each seconds to initialise;
  // inception_v3 and efficientnet_b0 in the tests of their refusals) and
  // the wider or deeper siblings of the newer families' smallest (the same
  // class; minutes under valgrind together).
  const auto sibling = [](const std::string& name, std::string_view family,
                          std::string_view smallest) {
    return name.starts_with(family) && name != smallest;
  };
  for (const std::string& name : models::list_models()) {
    if (name.starts_with("vgg") || name.starts_with("wide") || name.starts_with("resnext101") ||
        name == "alexnet" || name == "resnet152" || name == "resnet101" ||
        name.starts_with("convnext") || name.starts_with("efficientnet") ||
        name == "inception_v3" || sibling(name, "densenet", "densenet121") ||
        sibling(name, "shufflenet_v2", "shufflenet_v2_x0_5") ||
        sibling(name, "mnasnet", "mnasnet0_5") || sibling(name, "regnet_x", "regnet_x_400mf") ||
        sibling(name, "regnet_y", "regnet_y_400mf") || is_transformer(name))
      continue;
    EXPECT_NE(models::make(name, {.num_classes = 3}), nullptr) << name;
  }
}

TEST(VisionModels, MakeNamesTheKnownModelsForAnUnknownOne) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "unknown model 'resnet51'", models::make("resnet51"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "known: alexnet, convnext_base, convnext_large",
                  models::make("resnet51"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "resnet18 has no dropout option",
                  models::make("resnet18", {.dropout = 0.1}));
  // DenseNet's keyword is drop_rate, as torchvision's.
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "densenet121 has no dropout option",
                  models::make("densenet121", {.dropout = 0.1}));
  const std::vector<std::string> names = models::list_models();
  for (const char* name : {"alexnet",
                           "squeezenet1_0",
                           "squeezenet1_1",
                           "mobilenet_v2",
                           "mobilenet_v3_large",
                           "resnext50_32x4d",
                           "resnext101_32x8d",
                           "resnext101_64x4d",
                           "wide_resnet50_2",
                           "wide_resnet101_2",
                           "shufflenet_v2_x0_5",
                           "shufflenet_v2_x1_0",
                           "shufflenet_v2_x1_5",
                           "shufflenet_v2_x2_0",
                           "densenet121",
                           "densenet161",
                           "densenet169",
                           "densenet201",
                           "mnasnet0_5",
                           "mnasnet0_75",
                           "mnasnet1_0",
                           "mnasnet1_3",
                           "googlenet"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
}

}  // namespace
