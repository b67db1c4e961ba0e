// Initial values of the layers and how to skip them: fp::nn::manual_seed,
// SkipInit / skip_init, DefaultDevice (the meta device), and loading into
// a model that was built without values.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>
#include <unistd.h>

#include <filesystem>
#include <optional>

#include "nn/helpers.h"
#include "support/expect_error.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import math
from truth_helpers import g

def uniform_init(shape, bound, generator):
    # What fp::nn draws for Linear and Conv: rand, then lerp between the bounds in float32.
    low = torch.tensor(-bound, dtype=torch.float32)
    high = torch.tensor(bound, dtype=torch.float32)
    return torch.lerp(low, high, torch.rand(shape, generator=generator))
*/

namespace {

using fp_test::truth;

using nn_test::values;

bool on_meta(const fp::detail::TensorBase& tensor) {
  return tensor.device() == fp::Device::meta();
}

TEST(Init, EmbeddingDrawsTorchsNormalFromTheSeededGenerator) {
  /*
  #|PYTHON
  small = torch.randn(37, 5, generator=g(3))    # 185 values: normal_fill with a partial last block
  gen = g(4)
  large = torch.randn(300, 384, generator=gen)  # the AVX2 kernel's bulk
  after = torch.randn(4, 4, generator=gen)      # the generator continues
  */
  fp::nn::manual_seed(3);
  EXPECT_PYTHON(values(fp::nn::Embedding(37, 5).weight),
                truth<std::vector<float>>("small.flatten().tolist()"));
  fp::nn::manual_seed(4);
  EXPECT_PYTHON(values(fp::nn::Embedding(300, 384).weight),
                truth<std::vector<float>>("large.flatten().tolist()"));
  EXPECT_PYTHON(values(fp::nn::Embedding(4, 4).weight),
                truth<std::vector<float>>("after.flatten().tolist()"));
}

TEST(Init, LinearDrawsUniformBetweenItsBounds) {
  /*
  #|PYTHON
  gen = g(5)
  bound = 1 / math.sqrt(7)
  weight = uniform_init((3, 7), bound, gen)
  bias = uniform_init((3,), bound, gen)
  */
  fp::nn::manual_seed(5);
  const fp::nn::Linear linear(7, 3);
  EXPECT_PYTHON(values(linear.weight), truth<std::vector<float>>("weight.flatten().tolist()"));
  EXPECT_PYTHON(values(linear.bias), truth<std::vector<float>>("bias.tolist()"));
}

TEST(Init, DTypeAndDeviceOptionsConvertTheSameValues) {
  /*
  #|PYTHON
  as_double = torch.randn(20, 3, generator=g(6)).double()
  */
  fp::nn::manual_seed(6);
  const fp::nn::Embedding embedding(20, 3, {.dtype = fp::DType::F64});
  EXPECT_EQ(embedding.weight.dtype(), fp::DType::F64);
  EXPECT_EQ(embedding.weight.to_vector<double>(),
            truth<std::vector<double>>("as_double.flatten().tolist()"));
}

TEST(SkipInit, LayersGetTheirShapesButDrawNothing) {
  /*
  #|PYTHON
  first_draw = torch.randn(6, 2, generator=g(7))
  */
  fp::nn::manual_seed(7);
  {
    const fp::nn::SkipInit skip;
    EXPECT_TRUE(fp::nn::SkipInit::active());
    const fp::nn::Linear linear(384, 1536);
    EXPECT_EQ(nn_test::shape(linear.weight), (std::vector<std::int64_t>{1536, 384}));
    EXPECT_EQ(nn_test::shape(linear.bias), (std::vector<std::int64_t>{1536}));
    const fp::nn::Embedding embedding(30, 4, {.padding_idx = 0});
    EXPECT_EQ(nn_test::shape(embedding.weight), (std::vector<std::int64_t>{30, 4}));
    { const fp::nn::SkipInit nested; }
    EXPECT_TRUE(fp::nn::SkipInit::active());
  }
  EXPECT_FALSE(fp::nn::SkipInit::active());
  // Nothing was drawn: the next layer gets the generator's first values.
  EXPECT_PYTHON(values(fp::nn::Embedding(6, 2).weight),
                truth<std::vector<float>>("first_draw.flatten().tolist()"));
}

struct Tiny : fp::nn::Module {
  explicit Tiny(std::int64_t width) : head(width, 2), norm(2) {}
  fp::nn::Embedding embed{10, 4};
  fp::nn::Linear head;
  fp::nn::LayerNorm norm;
  void visit(fp::nn::Visitor& v) override {
    v.child("embed", embed);
    v.child("head", head);
    v.child("norm", norm);
  }
};

TEST(SkipInit, SkipInitBuildsAModelThatLoadsLikeAnyOther) {
  Tiny source(4);
  const fp::StateDict weights = nn_test::filled(source);
  Tiny model = fp::nn::skip_init<Tiny>(4);
  EXPECT_FALSE(fp::nn::SkipInit::active());
  model.load_state_dict(weights);
  for (const auto& [key, view] : model.state_dict()) {
    EXPECT_TRUE(view.is_equal(weights.at(key))) << key;
  }
}

TEST(DefaultDevice, MetaLayersHoldNoValuesAndLoadWithAssign) {
  Tiny source(4);
  source.load_state_dict(nn_test::filled(source));
  const auto path = std::filesystem::temp_directory_path() /
                    ("fp_nn_meta_" + std::to_string(::getpid()) + ".safetensors");
  fp::safetensors::save(source.state_dict().entries(), path);

  std::optional<Tiny> model;
  {
    const fp::nn::DefaultDevice meta(fp::Device::meta());
    EXPECT_EQ(fp::nn::DefaultDevice::current(), fp::Device::meta());
    model.emplace(4);
  }
  EXPECT_EQ(fp::nn::DefaultDevice::current(), std::nullopt);
  for (const auto& [key, view] : model->state_dict())
    EXPECT_TRUE(on_meta(view)) << key;
  // A layer's own `.device` wins over the default.
  {
    const fp::nn::DefaultDevice meta(fp::Device::meta());
    EXPECT_TRUE(fp::nn::Linear(2, 2, {.device = fp::Device::cpu()}).weight.device().is_cpu());
  }

  const auto file = fp::safetensors::MappedFile::open(path);
  model->load_state_dict(file, {.assign = true});
  std::filesystem::remove(path);
  for (const auto& [key, view] : model->state_dict()) {
    EXPECT_TRUE(view.device().is_cpu()) << key;
    EXPECT_TRUE(view.is_equal(source.state_dict().at(key))) << key;
  }
}

TEST(DefaultDevice, MetaModelsLoadFromMetaStateDicts) {
  std::optional<Tiny> model;
  std::optional<Tiny> other;
  {
    const fp::nn::DefaultDevice meta(fp::Device::meta());
    model.emplace(4);
    other.emplace(4);
  }
  // Meta into meta: nothing to compare storages of, nothing to copy.
  model->load_state_dict(other->state_dict());
  model->load_state_dict(other->state_dict(), {.assign = true});
  model->load_state_dict(model->state_dict());
  for (const auto& [key, view] : model->state_dict())
    EXPECT_TRUE(on_meta(view)) << key;
}

TEST(InitErrors, CopyingIntoMetaParametersIsRefused) {
  Tiny source(4);
  std::optional<Tiny> model;
  {
    const fp::nn::DefaultDevice meta(fp::Device::meta());
    model.emplace(4);
  }
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "copying from a non-meta parameter in the checkpoint to a meta parameter in the current "
      "model, which is a no-op, for embed.weight. (Pass `.assign = true`",
      model->load_state_dict(source.state_dict()));
  for (const auto& [key, view] : model->state_dict())
    EXPECT_TRUE(on_meta(view)) << key;  // nothing changed
}

TEST(InitErrors, ADefaultDeviceTheBuildCannotUseFailsAtTheLayer) {
  if (fp::cuda_is_available()) GTEST_SKIP() << "this checks the refusal without CUDA";
  const fp::nn::DefaultDevice cuda(fp::Device::cuda(0));
  // A CPU-only torch says it was not compiled with CUDA, a CUDA build that it
  // finds no NVIDIA driver; torch before 2.13 says it on stderr only.
  const auto expect_refusal = [](const auto& build_layer) {
    try {
      build_layer();
      ADD_FAILURE() << "building a layer on CUDA without a GPU did not throw";
    } catch (const fp::Error& error) {
      const std::string what = error.what();
      const bool says_why = what.find("CUDA") != std::string::npos ||
                            what.find("NVIDIA driver") != std::string::npos ||
                            what.find(fp_test::torch_error_text("CUDA")) != std::string::npos;
      EXPECT_TRUE(says_why) << what;
    }
  };
  expect_refusal([] { fp::nn::Linear(2, 2); });
  expect_refusal([] { fp::nn::skip_init<fp::nn::Linear>(2, 2); });
}

}  // namespace
