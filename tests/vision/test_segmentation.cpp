// fp::vision::models::segmentation against torchvision.models.segmentation:
// the same state-dict keys, and the same "out" and "aux" bit for bit for
// seeded random weights and inputs (batch 1 and 2), written by
// tests/vision/make_models.py when the tests run.
#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>
#include <flash_powder/vision/models.h>

#include "support/expect_error.h"
#include "vision/model_files.h"

// Named, as the unity build compiles this file with test_models.cpp.
namespace segmentation_test {
namespace {

namespace models = fp::vision::models;
namespace segmentation = fp::vision::models::segmentation;
namespace fs = std::filesystem;

using vision_test::expected_keys;
using vision_test::kModelDir;

struct SegmentationCase {
  std::string name;
  std::function<std::unique_ptr<segmentation::SegmentationModel>()> make;
};

// GoogleTest prints a parameter it cannot name byte by byte (see test_models.cpp).
void PrintTo(const SegmentationCase& segmentation_case, std::ostream* out) {
  *out << segmentation_case.name;
}

template <class Model>
std::function<std::unique_ptr<segmentation::SegmentationModel>()> maker(
    Model (*factory)(const segmentation::SegmentationOptions&),
    segmentation::SegmentationOptions options = {}) {
  return [factory, options] { return std::make_unique<Model>(factory(options)); };
}

std::vector<std::int64_t> shape(const fp::Tensor& tensor) {
  return {tensor.sizes().begin(), tensor.sizes().end()};
}

void expect_equal(const fp::Tensor& output, const fp::Tensor& expected, const std::string& what) {
  ASSERT_EQ(shape(output), shape(expected)) << what;
  EXPECT_TRUE(output.is_equal(expected))
      << what << ": max |delta| " << (output - expected).abs().max().item<float>();
}

class SegmentationTest : public testing::TestWithParam<SegmentationCase> {};

TEST_P(SegmentationTest, KeysAndOutputsEqualTorchvision) {
  const SegmentationCase& model_case = GetParam();
  if (vision_test::shallow_lane() && vision_test::native_only(model_case.name))
    GTEST_SKIP() << "a full-size network whose blocks a smaller case runs: the native lane's";
  const fs::path weights = kModelDir / (model_case.name + ".safetensors");
  ASSERT_TRUE(fs::exists(weights)) << weights;
  std::unique_ptr<segmentation::SegmentationModel> model = model_case.make();
  EXPECT_EQ(model->state_dict().keys(), expected_keys(model_case.name));
  model->load_state_dict(fp::safetensors::MappedFile::open(weights));

  const fp::StateDict io =
      fp::safetensors::load(kModelDir / (model_case.name + ".io-" +
                                         std::string(fp::torch_cpu_capability()) + ".safetensors"));
  for (const std::string batch : {"1", "2"}) {
    const segmentation::SegmentationOutput result = (*model)(io.at("input" + batch));
    expect_equal(result.out, io.at("out" + batch), model_case.name + " out, batch " + batch);
    ASSERT_EQ(result.aux.has_value(), io.contains("aux" + batch)) << model_case.name;
    if (result.aux)
      expect_equal(*result.aux, io.at("aux" + batch), model_case.name + " aux, batch " + batch);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Torchvision, SegmentationTest,
    testing::Values(
        SegmentationCase{"fcn_resnet50_aux",
                         maker(&segmentation::fcn_resnet50, {.aux_loss = true})},
        SegmentationCase{"deeplabv3_resnet50", maker(&segmentation::deeplabv3_resnet50)},
        SegmentationCase{"deeplabv3_mobilenet_v3_large_aux",
                         maker(&segmentation::deeplabv3_mobilenet_v3_large, {.aux_loss = true})},
        SegmentationCase{"lraspp_mobilenet_v3_large",
                         maker(&segmentation::lraspp_mobilenet_v3_large)},
        SegmentationCase{"lraspp_mobilenet_v3_large_classes5",
                         maker(&segmentation::lraspp_mobilenet_v3_large, {.num_classes = 5})}),
    [](const testing::TestParamInfo<SegmentationCase>& info) { return info.param.name; });

/// The resnet101 variants (make_models.py's KEYS_ONLY): their blocks run in
/// the resnet50 ones.
class SegmentationKeysOnlyTest : public testing::TestWithParam<SegmentationCase> {};

TEST_P(SegmentationKeysOnlyTest, KeysEqualTorchvision) {
  const SegmentationCase& model_case = GetParam();
  const std::vector<std::string> keys = expected_keys(model_case.name);
  ASSERT_FALSE(keys.empty()) << model_case.name;
  EXPECT_EQ(model_case.make()->state_dict().keys(), keys);
}

INSTANTIATE_TEST_SUITE_P(
    Torchvision, SegmentationKeysOnlyTest,
    testing::Values(SegmentationCase{"fcn_resnet101_aux",
                                     maker(&segmentation::fcn_resnet101, {.aux_loss = true})},
                    SegmentationCase{
                        "deeplabv3_resnet101_aux",
                        maker(&segmentation::deeplabv3_resnet101, {.aux_loss = true})}),
    [](const testing::TestParamInfo<SegmentationCase>& info) { return info.param.name; });

/// The dilation options of the backbones, in the classifiers and in other
/// patterns than the segmentation models' (make_models.py).
TEST(VisionSegmentation, DilatedClassifiersEqualTorchvision) {
  std::vector<std::pair<std::string, std::unique_ptr<fp::nn::Module>>> cases;
  cases.emplace_back(
      "mobilenet_v3_small_dilated",
      std::make_unique<models::MobileNetV3>(models::mobilenet_v3_small({.dilated = true})));
  cases.emplace_back(
      "resnet_dilated_shallow",
      std::make_unique<models::ResNet>(
          models::ResNetBlock::Bottleneck, std::array<std::int64_t, 4>{1, 1, 1, 1},
          models::ResNetOptions{.replace_stride_with_dilation = {true, false, true}}));
  for (const auto& [name, model] : cases) {
    EXPECT_EQ(model->state_dict().keys(), expected_keys(name));
    model->load_state_dict(fp::safetensors::MappedFile::open(kModelDir / (name + ".safetensors")));
    const fp::StateDict io = fp::safetensors::load(
        kModelDir / (name + ".io-" + std::string(fp::torch_cpu_capability()) + ".safetensors"));
    for (const std::string batch : {"1", "2"})
      expect_equal((*model)(io.at("input" + batch)), io.at("output" + batch), name + " " + batch);
  }
}

TEST(VisionSegmentation, AuxLossAddsTheAuxClassifierOnly) {
  // fcn_resnet50 without aux: torchvision's keys with aux, less aux_classifier's.
  std::vector<std::string> keys = expected_keys("fcn_resnet50_aux");
  std::erase_if(keys, [](const std::string& key) { return key.starts_with("aux_classifier."); });
  const segmentation::FCN fcn = segmentation::fcn_resnet50({.num_classes = 3});
  EXPECT_EQ(fcn.state_dict().keys(), keys);
  EXPECT_EQ(fcn.aux_classifier, nullptr);
  EXPECT_EQ(fcn.state_dict().at("classifier.4.weight").size(0), 3);
  const fp::Tensor scores = fcn(fp::zeros({1, 3, 9, 13})).out;
  EXPECT_EQ(shape(scores), (std::vector<std::int64_t>{1, 3, 9, 13}));
}

TEST(VisionSegmentation, BadInputIsRefused) {
  const segmentation::LRASPP lraspp = segmentation::lraspp_mobilenet_v3_large({.num_classes = 3});
  EXPECT_TORCH_ERROR("channels", lraspp(fp::zeros({1, 4, 32, 32})));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "", lraspp(fp::zeros({3, 3})));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "", lraspp(fp::zeros({1, 3, 0, 0})));
  const segmentation::DeepLabV3 deeplab =
      segmentation::deeplabv3_mobilenet_v3_large({.num_classes = 3, .aux_loss = true});
  EXPECT_TORCH_ERROR("channels", deeplab(fp::zeros({1, 1, 32, 32})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "Dimension out of range", deeplab(fp::zeros({32})));
}

TEST(VisionSegmentation, BadOptionsAreRefused) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "This model does not use auxiliary loss",
                  segmentation::lraspp_mobilenet_v3_large({.aux_loss = true}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "",
                  segmentation::lraspp_mobilenet_v3_large({.num_classes = -1}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "",
                  segmentation::deeplabv3_mobilenet_v3_large({.num_classes = -1}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "unknown model 'fcn_resnet18'",
                  segmentation::make("fcn_resnet18"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "known: deeplabv3_mobilenet_v3_large, deeplabv3_resnet101",
                  segmentation::make("fcn_resnet18"));
  // The parts: a dilated BasicBlock (torchvision's NotImplementedError), and
  // a layer to return that the network does not have.
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "Dilation > 1 not supported in BasicBlock",
                  models::resnet18({.replace_stride_with_dilation = {false, true, true}}));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument, "return_layers are not present in model",
      models::IntermediateLayerGetter(fp::nn::Sequential(fp::nn::ReLU()), {{"layer9", "out"}}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "return_layers is empty",
                  models::IntermediateLayerGetter(fp::nn::Sequential(fp::nn::ReLU()), {}));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument, "no classifier",
      segmentation::SimpleSegmentationModel(
          models::IntermediateLayerGetter(fp::nn::Sequential(fp::nn::ReLU()), {{"0", "out"}}),
          nullptr, nullptr));
}

TEST(VisionSegmentation, MakeBuildsByTorchvisionName) {
  EXPECT_EQ(segmentation::list_models(),
            (std::vector<std::string>{"deeplabv3_mobilenet_v3_large", "deeplabv3_resnet101",
                                      "deeplabv3_resnet50", "fcn_resnet101", "fcn_resnet50",
                                      "lraspp_mobilenet_v3_large"}));
  const std::unique_ptr<segmentation::SegmentationModel> net =
      segmentation::make("lraspp_mobilenet_v3_large", {.num_classes = 4});
  EXPECT_EQ(net->state_dict().keys(), expected_keys("lraspp_mobilenet_v3_large"));
  const segmentation::SegmentationOutput result = (*net)(fp::zeros({2, 3, 21, 17}));
  EXPECT_EQ(shape(result.out), (std::vector<std::int64_t>{2, 4, 21, 17}));
  EXPECT_FALSE(result.aux.has_value());
  EXPECT_NE(segmentation::make("deeplabv3_mobilenet_v3_large", {.aux_loss = true}), nullptr);
  // torchvision's get_model builds them too; the classifiers' make says where they are.
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fcn_resnet50 is a segmentation model; build it with "
                  "fp::vision::models::segmentation::make",
                  models::make("fcn_resnet50"));
}

TEST(VisionCategories, ReadsTheFileBesideTheCheckpoint) {
  const fs::path dir = fs::path(testing::TempDir()) / "fp_categories";
  fs::create_directories(dir);
  std::ofstream(dir / "net.safetensors.categories") << "__background__\r\naeroplane\nbicycle\n";
  const std::vector<std::string> expected{"__background__", "aeroplane", "bicycle"};
  EXPECT_EQ(models::read_categories(dir / "net.safetensors"), expected);
  EXPECT_EQ(models::read_categories(dir / "net.safetensors.categories"), expected);

  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "other.safetensors.categories: cannot be opened",
                  models::read_categories(dir / "other.safetensors"));
  std::ofstream(dir / "empty.categories").flush();
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "holds no names",
                  models::read_categories(dir / "empty.categories"));
  std::ofstream(dir / "gap.categories") << "cat\n\ndog\n";
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "line 2 is empty",
                  models::read_categories(dir / "gap.categories"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace segmentation_test
