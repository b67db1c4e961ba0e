// fp::vision::models against torchvision: the same state-dict keys, and the
// same outputs bit for bit for seeded random weights and inputs (batch 1 and
// 2), written by tests/vision/make_models.py when the tests run.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>
#include <flash_powder/vision/models.h>

#include "support/expect_error.h"

namespace {

namespace models = fp::vision::models;
namespace fs = std::filesystem;

const fs::path kModelDir = FP_VISION_MODEL_DIR;

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

/// Whether to run the deeper variants too (vgg13-19, resnet101/152), each up
/// to half a gigabyte of weights written and read per run, using no op their
/// shallower siblings lack. The lanes that force a CPU capability
/// (scripts/test --cpu, valgrind) and the sanitizer lane (FP_TEST_SHALLOW_MODELS)
/// leave them out; the native lane runs them all.
bool every_depth() {
  const char* forced = std::getenv("ATEN_CPU_CAPABILITY");
  const char* shallow = std::getenv("FP_TEST_SHALLOW_MODELS");
  return (forced == nullptr || *forced == '\0') && (shallow == nullptr || *shallow == '\0');
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

bool is_vgg(const std::string& name) {
  return name.starts_with("vgg");
}

fs::path weights_of(const std::string& name) {
  return kModelDir / (name + ".safetensors");
}

fs::path outputs_of(const std::string& name) {
  return kModelDir / (name + ".io-" + std::string(fp::torch_cpu_capability()) + ".safetensors");
}

/// VGG's weights are half a gigabyte each, too much to keep for eight
/// networks: their test writes them (make_models.py) and removes them after.
void make_weights(const std::string& name) {
  const std::string command =
      "\"" FP_TEST_PYTHON "\" \"" FP_VISION_MAKE_MODELS "\" \"" + kModelDir.string() + "\" " + name;
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
}

std::vector<std::string> expected_keys(const std::string& name) {
  std::ifstream file(kModelDir / (name + ".keys"));
  std::vector<std::string> keys;
  for (std::string line; std::getline(file, line);)
    keys.push_back(line);
  return keys;
}

class ModelTest : public testing::TestWithParam<ModelCase> {};

TEST_P(ModelTest, KeysAndOutputsEqualTorchvision) {
  const ModelCase& model_case = GetParam();
  if (is_vgg(model_case.name)) make_weights(model_case.name);
  ASSERT_TRUE(fs::exists(weights_of(model_case.name))) << weights_of(model_case.name);
  std::unique_ptr<fp::nn::Module> model = model_case.make();

  EXPECT_EQ(model->state_dict().keys(), expected_keys(model_case.name));
  {
    const auto weights = fp::safetensors::MappedFile::open(weights_of(model_case.name));
    model->load_state_dict(weights);
  }
  if (is_vgg(model_case.name)) fs::remove(weights_of(model_case.name));

  const fp::StateDict io = fp::safetensors::load(outputs_of(model_case.name));
  for (const char* batch : {"1", "2"}) {
    const fp::Tensor output = (*model)(io.at(std::string("input") + batch));
    const fp::Tensor& expected = io.at(std::string("output") + batch);
    EXPECT_EQ(output.sizes().size(), 2u);
    EXPECT_TRUE(output.is_equal(expected))
        << model_case.name << " batch " << batch << ": max |delta| "
        << (output - expected).abs().max().item<float>();
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

}  // namespace
