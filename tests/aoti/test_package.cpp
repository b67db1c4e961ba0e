// Running packages: the same outputs as Python's own loader (bit for bit),
// eager PyTorch within a tolerance, dynamic batch, external weights, two
// models at once, many threads, and what a package says about itself.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include <unistd.h>

#include "aoti/fixture.h"
#include "support/expect_error.h"

namespace {

using aoti_test::package;
using aoti_test::references;
namespace aoti = fp::aoti;

// Inductor fuses and reorders float arithmetic, so eager PyTorch differs in
// the last bits; 1e-5 is far below any real error on these O(1) outputs.
constexpr double kEagerTolerance = 1e-5;

TEST(AotiPackage, DynamicBatchIsBitExactWithPythonsLoader) {
  const auto model = aoti::Package::open(package("mlp"));
  const auto refs = references("mlp");
  for (const char* batch : {"b1", "b2", "b7", "b64"})
    aoti_test::expect_case(model, refs, batch, 2, 2);
}

TEST(AotiPackage, MatchesEagerWithinTolerance) {
  const auto mlp = aoti::Package::open(package("mlp"));
  const auto refs = references("mlp");
  const auto out = mlp(refs.at("in.b7.0"), refs.at("in.b7.1"));
  aoti_test::expect_close(out[0], refs.at("eager.b7.0"), kEagerTolerance, "mlp 0");
  aoti_test::expect_close(out[1], refs.at("eager.b7.1"), kEagerTolerance, "mlp 1");
  const auto cnn = aoti::Package::open(package("cnn"));
  const auto cnn_refs = references("cnn");
  aoti_test::expect_close(cnn(cnn_refs.at("in.b2.0"))[0], cnn_refs.at("eager.b2.0"),
                          kEagerTolerance, "cnn");
}

TEST(AotiPackage, ExternalWeightsBlobIsLoaded) {
  const auto model = aoti::Package::open(package("mlp_blob"));
  aoti_test::expect_case(model, references("mlp_blob"), "b3", 2, 2);
}

TEST(AotiPackage, OpensFromBytes) {
  const auto bytes = aoti_test::file_bytes(package("mlp"));
  const auto model = aoti::Package::open(std::span<const std::byte>(bytes));
  aoti_test::expect_case(model, references("mlp"), "b2", 2, 2);
}

TEST(AotiPackage, KeepsWorkingAfterItsFileIsDeletedOrReplaced) {
  // Opening reads the whole archive (the model library goes to a memfd, the
  // weights to memory): nothing refers to the file afterwards, so a package
  // deleted, or overwritten in place by a new export, while open keeps its
  // outputs. (Python's loader extracts to a temporary folder, with the same effect.)
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / ("fp_aoti_deleted_" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  const auto copy = folder / "mlp.pt2";
  std::filesystem::copy_file(package("mlp"), copy);
  const auto refs = references("mlp");
  {
    const auto deleted = aoti::Package::open(copy);
    aoti_test::expect_case(deleted, refs, "b2", 2, 2);
    std::filesystem::remove(copy);
    ASSERT_FALSE(std::filesystem::exists(copy));
    aoti_test::expect_case(deleted, refs, "b2", 2, 2);
    aoti_test::expect_case(deleted, refs, "b7", 2, 2);
  }
  {
    std::filesystem::copy_file(package("mlp"), copy);
    const auto overwritten = aoti::Package::open(copy);
    // Truncated to nothing, then filled with another package's bytes, in place.
    std::filesystem::resize_file(copy, 0);
    const auto other = aoti_test::file_bytes(package("cnn"));
    std::ofstream(copy, std::ios::binary | std::ios::in | std::ios::out)
        .write(reinterpret_cast<const char*>(other.data()),
               static_cast<std::streamsize>(other.size()));
    aoti_test::expect_case(overwritten, refs, "b64", 2, 2);
  }
  std::filesystem::remove_all(folder);
}

TEST(AotiPackage, TwoModelsInOneProcessDoNotCollide) {
  // The same library twice and a different one: each is loaded RTLD_LOCAL
  // from its own memfd, so their C++ symbols and globals stay apart.
  const auto first = aoti::Package::open(package("mlp"));
  const auto second = aoti::Package::open(package("mlp"));
  const auto cnn = aoti::Package::open(package("cnn"));
  const auto blob = aoti::Package::open(package("mlp_blob"));
  const auto refs = references("mlp");
  const auto cnn_refs = references("cnn");
  for (int round = 0; round < 2; ++round) {
    aoti_test::expect_case(first, refs, "b7", 2, 2);
    aoti_test::expect_case(cnn, cnn_refs, "b2", 1, 1);
    aoti_test::expect_case(second, refs, "b1", 2, 2);
    aoti_test::expect_case(blob, references("mlp_blob"), "b3", 2, 2);
  }
}

TEST(AotiPackage, ManyThreadsCallOnePackage) {
  const auto model = aoti::Package::open(package("mlp"), {.num_runners = 2});
  const auto refs = references("mlp");
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      const std::string name = t % 2 == 0 ? "b7" : "b64";
      for (int call = 0; call < 15; ++call) {
        const auto out = model(refs.at("in." + name + ".0"), refs.at("in." + name + ".1"));
        const auto got = out[0].to_vector<float>();
        const auto want = refs.at("out." + name + ".0").to_vector<float>();
        if (got.size() != want.size() ||
            std::memcmp(got.data(), want.data(), got.size() * sizeof(float)) != 0)
          mismatches.fetch_add(1);
      }
    });
  }
  for (auto& thread : threads)
    thread.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(AotiPackage, NonContiguousInputsAreMadeContiguous) {
  const auto model = aoti::Package::open(package("mlp"));
  const auto refs = references("mlp");
  // x as the transpose of its transpose's contiguous copy: same values, strides [1, 7].
  const fp::Tensor x_t = refs.at("in.b7.0").transpose(0, 1).contiguous();
  const fp::TensorView x = x_t.transpose(0, 1);
  ASSERT_FALSE(x.is_contiguous());
  const auto out = model(x, refs.at("in.b7.1"));
  aoti_test::expect_bit_equal(out[0], refs.at("out.b7.0"), "output 0");
}

TEST(AotiPackage, OutputsAreIndependentTensors) {
  const auto model = aoti::Package::open(package("mlp"));
  const auto refs = references("mlp");
  fp::Tensor x = refs.at("in.b2.0");
  auto out = model(x, refs.at("in.b2.1"));
  out[0].fill_(0.0);  // changes nothing else
  aoti_test::expect_bit_equal(x, refs.at("in.b2.0"), "input after writing an output");
  aoti_test::expect_bit_equal(model(x, refs.at("in.b2.1"))[0], refs.at("out.b2.0"), "rerun");
}

TEST(AotiPackage, DescribesItselfLikePythonsLoader) {
  const auto model = aoti::Package::open(package("mlp"));
  std::ifstream file(aoti_test::refs_dir() / "mlp.info.json");
  const auto info = nlohmann::json::parse(file);
  EXPECT_EQ(model.input_names().size(), info["num_inputs"].get<std::size_t>());
  EXPECT_EQ(model.output_names().size(), info["num_outputs"].get<std::size_t>());
  std::vector<std::string> fqns;
  for (const auto& constant : model.constants()) {
    fqns.push_back(constant.original_fqn);
    EXPECT_GT(constant.data_size, 0u) << constant.name;
  }
  auto expected_fqns = info["constant_fqns"].get<std::vector<std::string>>();
  std::ranges::sort(fqns);  // Python lists them from a hash map
  std::ranges::sort(expected_fqns);
  EXPECT_EQ(fqns, expected_fqns);
  int compared = 0;
  for (const auto& [key, value] : info["metadata"].items()) {
    if (!key.starts_with("AOTI_")) continue;  // Python adds loader settings of its own
    ASSERT_TRUE(model.metadata().contains(key)) << key;
    EXPECT_EQ(model.metadata().at(key), value.get<std::string>()) << key;
    ++compared;
  }
  EXPECT_GE(compared, 2);
  EXPECT_EQ(model.metadata().at("AOTI_DEVICE_KEY"), "cpu");
  EXPECT_EQ(nlohmann::json::parse(model.in_spec()),
            nlohmann::json::parse(info["in_spec"].get<std::string>()));
  ASSERT_TRUE(model.signature().has_value());
  const auto& inputs = model.signature()->inputs;
  ASSERT_EQ(inputs.size(), info["signature"]["inputs"].size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto& expected = info["signature"]["inputs"][i];
    EXPECT_EQ(inputs[i].name, expected["name"].get<std::string>());
    ASSERT_EQ(inputs[i].sizes.size(), expected["sizes"].size());
    const auto& batch = expected["sizes"][0];
    EXPECT_EQ(inputs[i].sizes[0].symbol, batch["symbol"].get<std::string>());
    EXPECT_EQ(inputs[i].sizes[0].min, batch["min"].get<std::int64_t>());
    EXPECT_EQ(inputs[i].sizes[0].max, batch["max"].get<std::int64_t>());
  }
  EXPECT_EQ(model.device(), fp::Device::cpu());
}

TEST(AotiPackage, MovedFromPackageThrows) {
  auto model = aoti::Package::open(package("mlp"));
  const auto moved = std::move(model);
  const auto refs = references("mlp");
  // Using the moved-from package is the point: it must refuse.
  // NOLINTBEGIN(bugprone-use-after-move)
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "moved from",
                  model(refs.at("in.b2.0"), refs.at("in.b2.1")));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "moved from", (void)model.input_names());
  // NOLINTEND(bugprone-use-after-move)
  EXPECT_EQ(moved.input_names().size(), 2u);
}

TEST(AotiPackage, CudaPackageRunsOnGpu) {
  if (!fp::cuda_is_available()) GTEST_SKIP() << "no CUDA device";
  if (!std::filesystem::exists(package("mlp_cuda")))
    GTEST_SKIP() << "the fixture's torch has no CUDA, so no CUDA package was exported";
  const auto model = aoti::Package::open(package("mlp_cuda"), {.device = fp::Device::cuda(0)});
  const auto refs = references("mlp_cuda");
  const fp::Tensor x = refs.at("in.b7.0").to(fp::Device::cuda(0));
  const fp::Tensor y = refs.at("in.b7.1").to(fp::Device::cuda(0));
  const auto out = model(x, y);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].device(), fp::Device::cuda(0));
  aoti_test::expect_bit_equal(out[0].to(fp::Device::cpu()), refs.at("out.b7.0"), "cuda output");
}

}  // namespace

namespace {

TEST(AotiPackage, LoadWeightsSwapsTheConstants) {
  auto model = fp::aoti::Package::open(aoti_test::package("mlp"));
  const auto refs = aoti_test::references("mlp");
  const auto new_weights =
      fp::safetensors::MappedFile::open(aoti_test::refs_dir() / "mlp_new_weights.safetensors");
  model.load_weights(new_weights);
  const auto swapped = fp::safetensors::load(aoti_test::refs_dir() / "mlp_swapped.safetensors");
  const auto out = model(refs.at("in.b7.0"), refs.at("in.b7.1"));
  aoti_test::expect_close(out[0], swapped.at("swapped.0"), 1e-5, "output 0");
  aoti_test::expect_close(out[1], swapped.at("swapped.1"), 1e-5, "output 1");
  // ...and not the old weights' outputs any more.
  const auto old = refs.at("out.b7.0").to_vector<float>();
  EXPECT_NE(out[0].to_vector<float>(), old);
}

TEST(AotiPackage, LoadWeightsRefusesWhatDoesNotFit) {
  auto model = fp::aoti::Package::open(aoti_test::package("mlp"));
  const auto refs = aoti_test::references("mlp");
  const auto file = fp::safetensors::load(aoti_test::refs_dir() / "mlp_new_weights.safetensors");
  const std::string key = model.constants().front().original_fqn;
  fp::StateDict missing;
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "the new weights lack \"",
                  model.load_weights(missing));
  fp::StateDict wrong_dtype = file;
  wrong_dtype.at(key) = file.at(key).to(fp::DType::F64);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "weight \"" + key + "\" must have dtype float32, not float64",
                  model.load_weights(wrong_dtype));
  fp::StateDict wrong_size = file;
  wrong_size.at(key) = fp::zeros({1, 1});
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "weight \"" + key + "\" must hold " +
                      std::to_string(model.constants().front().data_size) +
                      " bytes (rounded up to 64), not 4",
                  model.load_weights(wrong_size));
  // Nothing was changed by the refusals.
  aoti_test::expect_case(model, refs, "b7", 2, 2);
}

}  // namespace

namespace {

TEST(AotiPackage, LoadWeightsOfAFrozenPackageSaysToExportUnfrozen) {
  // The CNN is exported frozen (tools/export_aoti.py's default): its
  // constants are the folded, pre-packed weights.
  auto model = fp::aoti::Package::open(aoti_test::package("cnn"));
  fp::StateDict weights;
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "export the model with --no-freeze",
                  model.load_weights(weights));
  const auto refs = aoti_test::references("cnn");
  aoti_test::expect_case(model, refs, "b2", 1, 1);
}

TEST(AotiPackage, CallsDuringAWeightSwapSeeOldOrNewWeights) {
  auto model = fp::aoti::Package::open(aoti_test::package("mlp"), {.num_runners = 2});
  const auto refs = aoti_test::references("mlp");
  const auto new_weights =
      fp::safetensors::load(aoti_test::refs_dir() / "mlp_new_weights.safetensors");
  const auto swapped = fp::safetensors::load(aoti_test::refs_dir() / "mlp_swapped.safetensors");
  const auto old_bits = refs.at("out.b7.0").to_vector<float>();
  const auto new_values = swapped.at("swapped.0").to_vector<float>();
  std::atomic<bool> done{false};
  std::atomic<int> neither{0};
  std::atomic<int> calls{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 3; ++t) {
    callers.emplace_back([&] {
      while (!done.load()) {
        const auto got = model(refs.at("in.b7.0"), refs.at("in.b7.1"))[0].to_vector<float>();
        calls.fetch_add(1);
        bool is_new = got.size() == new_values.size();
        for (std::size_t i = 0; is_new && i < got.size(); ++i)
          is_new = std::abs(got[i] - new_values[i]) <= 1e-5f;
        if (got != old_bits && !is_new) neither.fetch_add(1);
      }
    });
  }
  while (calls.load() < 3)
    std::this_thread::yield();  // calls are under way
  for (int swap = 0; swap < 5; ++swap)
    model.load_weights(new_weights);
  done.store(true);
  for (auto& caller : callers)
    caller.join();
  EXPECT_GT(calls.load(), 0);
  EXPECT_EQ(neither.load(), 0);
  aoti_test::expect_close(model(refs.at("in.b7.0"), refs.at("in.b7.1"))[0], swapped.at("swapped.0"),
                          1e-5, "after the swaps");
}

}  // namespace
