// fp::nn::optimize_for_inference against a frozen AOTInductor package of the
// same module and weights (the aoti fixture's CNN, tests/aoti/make_packages.py:
// what Python's loader returns for it), against the oneDNN kernels Python
// calls for each fused layer, and its bad uses.
// Why this file is long: one pass with many promises (fusing, the report, undo,
// reoptimising on load and to(), copies, threads, bad chains) and its kernels.
#include <gtest/gtest.h>

#include <flash_powder/aten/aten.h>
#include <flash_powder/aten/mkldnn.h>
#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>
#include <flash_powder/vision/models.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "nn/helpers.h"
#include "support/expect_error.h"
#include "support/truth.h"
#include "unet.h"

/*
#|PYTHON_GLOBAL
import torch.nn.functional as F
from truth_helpers import g, values, filled
*/

namespace {

namespace nn = fp::nn;
namespace fs = std::filesystem;
using fp_test::truth;
using nn_test::randn;
using nn_test::values;

/// The aoti fixture's references for this lane's CPU settings
/// (tests/aoti/make_packages.py's cpu_settings_name()).
fs::path refs_dir() {
  std::string name;
  for (const char* variable :
       {"ATEN_CPU_CAPABILITY", "MKL_ENABLE_INSTRUCTIONS", "ONEDNN_MAX_CPU_ISA", "MKL_CBWR"}) {
    const char* value = std::getenv(variable);
    name += (name.empty() ? "" : "-") + std::string(value && *value ? value : "native");
  }
  return fs::path(FP_AOTI_DIR) / "refs" / name;
}

/// max |a - b|, and that over max |b|.
struct Difference {
  double absolute = 0;
  double relative = 0;
};

Difference difference(const fp::TensorView& actual, const fp::TensorView& expected) {
  const auto a = actual.to_vector<float>();
  const auto b = expected.to_vector<float>();
  EXPECT_EQ(a.size(), b.size());
  Difference d;
  double scale = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    d.absolute = std::max(d.absolute, std::abs(static_cast<double>(a[i]) - b[i]));
    scale = std::max(scale, std::abs(static_cast<double>(b[i])));
  }
  d.relative = scale > 0 ? d.absolute / scale : d.absolute;
  return d;
}

bool bit_equal(const fp::TensorView& a, const fp::TensorView& b) {
  return a.sizes().size() == b.sizes().size() &&
         std::equal(a.sizes().begin(), a.sizes().end(), b.sizes().begin()) &&
         a.to_vector<float>() == b.to_vector<float>();
}

/// A hand-written module: Sequential blocks (found by the pass), a residual
/// block of named layers (fusable_chains, conv_add) and a linear head.
struct FusedNet : nn::Module {
  nn::Sequential stem{nn::Conv2d(3, 16, 3, {.padding = 1, .bias = false}), nn::BatchNorm2d(16),
                      nn::ReLU()};
  nn::Conv2d conv1{16, 16, 3, {.padding = 1, .bias = false}};
  nn::BatchNorm2d bn1{16};
  nn::ReLU relu;
  nn::Conv2d conv2{16, 16, 3, {.padding = 1, .bias = false}};
  nn::BatchNorm2d bn2{16};
  nn::Sequential down{nn::Conv2d(16, 32, 3, {.stride = 2, .padding = 1}), nn::BatchNorm2d(32),
                      nn::SiLU()};
  nn::Sequential head{nn::Flatten(), nn::Linear(32 * 8 * 8, 10), nn::ReLU(), nn::Linear(10, 10)};

  FP_MODULE(stem, conv1, bn1, relu, conv2, bn2, down, head)

  std::vector<std::vector<std::string>> fusable_chains() const override {
    return {{"conv1", "bn1", "relu"}, {"conv2", "bn2"}};
  }

  fp::Tensor forward(fp::TensorView x) const override {
    fp::Tensor h = stem(x);
    const fp::Tensor y = relu(bn1(conv1(h)));
    h = nn::conv_add(conv2, bn2, y, std::move(h), /*relu=*/true);
    return head(down(h));
  }
};

FusedNet loaded_net() {
  FusedNet net;
  net.load_state_dict(nn_test::filled(net, 11, 0.2f));
  return net;
}

fp::Tensor net_input() {
  return randn({2, 3, 16, 16}, 12);
}

/// max |a - b| over max |b| between `optimised` and `eager`, printed: the
/// measured difference the docs quote.
double relative_to_eager(const std::string& what, const fp::Tensor& optimised,
                         const fp::Tensor& eager) {
  const Difference d = difference(optimised, eager);
  std::cout << what << " optimised: max |delta| " << d.absolute << " from eager (relative "
            << d.relative << ")\n";
  return d.relative;
}

/// tests/aoti/models.py's TinyCnn, which the aoti fixture exports frozen.
struct TinyCnn : nn::Module {
  nn::Sequential features{nn::Conv2d(3, 4, 3, {.padding = 1}), nn::BatchNorm2d(4), nn::ReLU(),
                          nn::MaxPool2d(2)};
  nn::Linear classifier{4 * 4 * 4, 5};
  FP_MODULE(features, classifier)
  fp::Tensor forward(fp::TensorView image) const override {
    return classifier(features(image).flatten(1));
  }
};

TEST(OptimizeForInference, EqualsFrozenInductorBitForBit) {
  TinyCnn net;
  net.load_state_dict(fp::safetensors::MappedFile::open(refs_dir() / "cnn_weights.safetensors"));
  const fp::StateDict refs = fp::safetensors::load(refs_dir() / "cnn.safetensors");
  const fp::Tensor& x = refs.at("in.b2.0");
  const fp::Tensor& frozen = refs.at("out.b2.0");
  // The port first: eager, it is PyTorch's module bit for bit, and the
  // frozen package (BatchNorm folded) is not.
  ASSERT_TRUE(bit_equal(net(x), refs.at("eager.b2.0")));
  ASSERT_FALSE(bit_equal(frozen, refs.at("eager.b2.0")));

  const nn::OptimizeReport report = nn::optimize_for_inference(net);
  EXPECT_EQ(report.fused,
            (std::vector<std::string>{"features.0 + features.1 + features.2: Conv2d, BatchNorm2d "
                                      "folded in, ReLU fused (oneDNN, pre-packed weight)",
                                      "classifier: Linear (oneDNN)"}));
  EXPECT_TRUE(report.unchanged.empty()) << report.unchanged.front();
  const fp::Tensor out = net(x);
  // The package holds its weights pre-packed for the CPU that exported it.
  // With oneDNN held to SSE4.1 (the default, valgrind and sanitizer lanes)
  // its kernels then differ from those this process packs for, and so do
  // the last bits (measured: 7.6e-6 on logits of magnitude ~1). So with
  // another torch loaded than the one that exported it (its oneDNN packs
  // another way: 1.8e-6 with torch 2.11).
  const char* isa = std::getenv("ONEDNN_MAX_CPU_ISA");
  if ((isa != nullptr && std::string(isa).starts_with("SSE")) ||
      fp::torch_version() != fp::torch_build_version()) {
    const Difference d = difference(out, frozen);
    EXPECT_LT(d.relative, 1e-5) << "max |delta| from the frozen package " << d.absolute;
    EXPECT_FALSE(bit_equal(out, refs.at("eager.b2.0")));
    return;
  }
  EXPECT_TRUE(bit_equal(out, frozen))
      << "max |delta| from the frozen package " << difference(out, frozen).absolute;
}

TEST(OptimizeForInference, HandWrittenModuleFusesItsChains) {
  FusedNet net = loaded_net();
  const fp::Tensor x = net_input();
  const fp::Tensor eager = net(x);
  const nn::OptimizeReport report = nn::optimize_for_inference(net);
  const std::vector<std::string> fused{
      "conv1 + bn1 + relu: Conv2d, BatchNorm2d folded in, ReLU fused (oneDNN, pre-packed weight)",
      "conv2 + bn2: Conv2d, BatchNorm2d folded in (oneDNN, pre-packed weight)",
      "stem.0 + stem.1 + stem.2: Conv2d, BatchNorm2d folded in, ReLU fused (oneDNN, pre-packed "
      "weight)",
      "down.0 + down.1 + down.2: Conv2d, BatchNorm2d folded in, SiLU fused (oneDNN, pre-packed "
      "weight)",
      "head.1 + head.2: Linear, ReLU fused (oneDNN)",
      "head.3: Linear (oneDNN)",
  };
  std::vector<std::string> got = report.fused;
  std::ranges::sort(got);
  std::vector<std::string> expected = fused;
  std::ranges::sort(expected);
  EXPECT_EQ(got, expected);
  EXPECT_TRUE(report.unchanged.empty()) << report.unchanged.front();
  ASSERT_TRUE(nn::is_optimized_for_inference(net));
  // Against eager: the folded weights and oneDNN's SiLU round differently.
  const fp::Tensor out = net(x);
  EXPECT_FALSE(bit_equal(out, eager));
  EXPECT_LT(relative_to_eager("FusedNet", out, eager), 1e-5);
}

// fp::vision's ResNet names its chains (fusable_chains()) and ends each block
// with nn::conv_add. Against PyTorch eager, every model of fp::vision is
// checked optimised too (tests/vision/test_models.cpp); here against the
// eager port, whose outputs are PyTorch's bit for bit.
TEST(OptimizeForInference, Resnet18FusesEveryConvolution) {
  auto net = fp::vision::models::resnet18({.num_classes = 10});
  net.load_state_dict(nn_test::filled(net, 2, 0.05f));
  const fp::Tensor x = randn({1, 3, 64, 64}, 1);
  const fp::Tensor eager = net(x);
  const nn::OptimizeReport report = nn::optimize_for_inference(net);
  // Every convolution (20, downsampling included) and the classifier.
  EXPECT_EQ(report.fused.size(), 21u);
  EXPECT_TRUE(report.unchanged.empty()) << report.unchanged.front();
  EXPECT_EQ(report.fused.front(),
            "conv1 + bn1 + relu: Conv2d, BatchNorm2d folded in, ReLU fused (oneDNN, pre-packed "
            "weight)");
  EXPECT_LT(relative_to_eager("resnet18", net(x), eager), 1e-5);
  nn::undo_optimize_for_inference(net);
  EXPECT_TRUE(bit_equal(net(x), eager));
}

// The U-Net demo's network: its Sequentials are found by themselves; the
// transposed convolution and the last one run through oneDNN.
TEST(OptimizeForInference, UNetFusesItsSequentials) {
  unet::UNet net;
  net.load_state_dict(nn_test::filled(net, 3, 0.2f));
  const fp::Tensor x = randn({1, 3, 32, 32}, 4);
  const fp::Tensor eager = net(x);
  const nn::OptimizeReport report = nn::optimize_for_inference(net);
  // Ten convolution-BatchNorm-ReLU chains, the transposed convolution, outc.
  EXPECT_EQ(report.fused.size(), 12u);
  EXPECT_TRUE(report.unchanged.empty()) << report.unchanged.front();
  EXPECT_LT(relative_to_eager("U-Net", net(x), eager), 1e-5);
}

// --- what the pass does to a model, and the bad uses -----------------------------

TEST(OptimizeForInference, OptimisingTwiceGivesTheSameModel) {
  FusedNet net = loaded_net();
  const fp::Tensor x = net_input();
  const nn::OptimizeReport first = nn::optimize_for_inference(net);
  const fp::Tensor once = net(x);
  const nn::OptimizeReport second = nn::optimize_for_inference(net);
  EXPECT_EQ(first.fused, second.fused);
  EXPECT_TRUE(bit_equal(net(x), once));
}

TEST(OptimizeForInference, UndoGivesTheEagerModelBack) {
  FusedNet net = loaded_net();
  const fp::Tensor x = net_input();
  const fp::Tensor eager = net(x);
  nn::optimize_for_inference(net);
  ASSERT_FALSE(bit_equal(net(x), eager));
  nn::undo_optimize_for_inference(net);
  EXPECT_FALSE(nn::is_optimized_for_inference(net));
  EXPECT_TRUE(bit_equal(net(x), eager));
}

TEST(OptimizeForInference, CopiesAreNotOptimised) {
  FusedNet net = loaded_net();
  const FusedNet eager = loaded_net();
  const fp::Tensor x = net_input();
  nn::optimize_for_inference(net);
  // A copy of part of the model could split a fused chain (the stem's
  // convolution applies the BatchNorm and ReLU a slice of it lacks).
  const nn::Sequential copy = net.stem.clone();
  EXPECT_FALSE(nn::is_optimized_for_inference(copy));
  EXPECT_TRUE(bit_equal(copy(x), eager.stem(x)));
  const nn::Sequential first_two = net.stem.slice(0, 2);
  EXPECT_FALSE(nn::is_optimized_for_inference(first_two));
  const nn::Conv2d conv = net.conv1;
  EXPECT_FALSE(nn::is_optimized_for_inference(conv));
  EXPECT_TRUE(nn::is_optimized_for_inference(net));
}

TEST(OptimizeForInference, LoadingAStateDictIntoTheModelOptimisesItAgain) {
  FusedNet net = loaded_net();
  const fp::Tensor x = net_input();
  nn::optimize_for_inference(net);
  const fp::Tensor before = net(x);
  // Other weights: every tensor of the state dict scaled.
  fp::StateDict other;
  for (const auto& [key, value] : net.state_dict()) {
    other.insert(
        key, fp::is_floating_point(value.dtype()) ? value * fp::tensor(0.5f) : value.to_owned());
  }
  net.load_state_dict(other);
  EXPECT_TRUE(nn::is_optimized_for_inference(net));
  FusedNet fresh;
  fresh.load_state_dict(other);
  nn::optimize_for_inference(fresh);
  EXPECT_TRUE(bit_equal(net(x), fresh(x)));
  EXPECT_FALSE(bit_equal(net(x), before));
}

TEST(OptimizeForInference, LoadingAStateDictIntoAPartThrows) {
  FusedNet net = loaded_net();
  nn::optimize_for_inference(net);
  const fp::StateDict bn1 = net.bn1.state_dict().to_owned();
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::Module::load_state_dict: this BatchNorm2d is part of a model "
                  "fp::nn::optimize_for_inference was called on, whose fused layers would not see "
                  "the change; call load_state_dict on that model (it optimises itself again "
                  "afterwards), or fp::nn::undo_optimize_for_inference on it first",
                  net.bn1.load_state_dict(bn1));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "(\"0\" runs fused)", net.stem.to(fp::DType::F64));
  // Refused before anything changed.
  EXPECT_EQ(net.stem.at<nn::Conv2d>(0).weight.dtype(), fp::DType::F32);
  nn::undo_optimize_for_inference(net);
  net.bn1.load_state_dict(bn1);
}

TEST(OptimizeForInference, ToAnotherDtypeOptimisesAgain) {
  FusedNet net = loaded_net();
  const fp::Tensor input = net_input();
  nn::optimize_for_inference(net);
  const fp::Tensor before = net(input);
  net.to(fp::DType::F64);
  // float64: BatchNorm still folded, on ATen's kernels (oneDNN's are float32).
  EXPECT_TRUE(nn::is_optimized_for_inference(net));
  FusedNet eager = loaded_net();
  eager.to(fp::DType::F64);
  const fp::Tensor x = input.to(fp::DType::F64);
  const Difference d = difference(net(x).to(fp::DType::F32), eager(x).to(fp::DType::F32));
  EXPECT_LT(d.relative, 1e-6);
  net.to(fp::DType::F32);
  EXPECT_TRUE(bit_equal(net(input), before));
}

TEST(OptimizeForInference, LayersOffTheCpuAreLeftAlone) {
  // No GPU needed: the meta device stands for any other.
  FusedNet net;
  net.to(fp::Device::meta());
  const nn::OptimizeReport report = nn::optimize_for_inference(net);
  EXPECT_TRUE(report.fused.empty());
  ASSERT_EQ(report.unchanged.size(), 6u);
  EXPECT_NE(report.unchanged.front().find(": on meta (optimize_for_inference changes CPU layers "
                                          "only)"),
            std::string::npos)
      << report.unchanged.front();
  EXPECT_FALSE(nn::is_optimized_for_inference(net));
}

/// The fp::Error `call` throws, or "" when it throws none.
template <class Call>
std::string error_of(Call&& call) {
  try {
    call();
  } catch (const fp::Error& error) {
    return error.what();
  }
  return "";
}

TEST(OptimizeForInference, InputsTheFusedKernelsDoNotTakeGetEagerResultsAndErrors) {
  FusedNet net = loaded_net();
  const FusedNet eager = loaded_net();
  nn::optimize_for_inference(net);
  // Another device never reaches a oneDNN kernel: the eager layers refuse it
  // as they always do.
  const fp::Tensor meta = fp::empty({2, 3, 16, 16}, fp::Device::meta());
  const std::string expected = error_of([&] { (void)eager(meta); });
  ASSERT_NE(expected, "");
  EXPECT_EQ(error_of([&] { (void)net(meta); }), expected);
  EXPECT_EQ(expected.find("oneDNN"), std::string::npos);
  // So does another dtype (the folded convolution has a bias, so libtorch
  // words it differently).
  const fp::Tensor wide = randn({2, 3, 16, 16}, 5).to(fp::DType::F64);
  EXPECT_TORCH_ERROR("stem.0: aten::conv2d: ", (void)net(wide));
  EXPECT_NE(error_of([&] { (void)eager(wide); }), "");
  // Unbatched input (3-d for a 2-d convolution) runs on ATen's kernels.
  nn::Sequential block(nn::Conv2d(3, 4, 3), nn::ReLU());
  block.load_state_dict(nn_test::filled(block, 9));
  const fp::Tensor image = randn({3, 16, 16}, 6);
  const fp::Tensor expected_block = block(image);
  nn::optimize_for_inference(block);
  EXPECT_TRUE(bit_equal(block(image), expected_block));
}

/// Modules without chains of their own, for the chains given by name.
struct Plain : nn::Module {
  nn::Conv2d conv{3, 4, 3};
  nn::BatchNorm2d bn{4};
  nn::ReLU relu;
  nn::Linear fc{4, 2};
  nn::BatchNorm1d bn1d{2};
  FP_MODULE(conv, bn, relu, fc, bn1d)
  fp::Tensor forward(fp::TensorView x) const override { return relu(bn(conv(x))); }
};

/// A module whose own chain is wrong.
struct WrongChain : Plain {
  std::vector<std::vector<std::string>> fusable_chains() const override { return {{"bn", "conv"}}; }
};

TEST(OptimizeForInference, BadChainsThrowAndChangeNothing) {
  Plain plain;
  const auto refuses = [&](const std::vector<std::vector<std::string>>& chains,
                           const std::string& message) {
    EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, message,
                    nn::optimize_for_inference(plain, {.chains = chains}));
    EXPECT_FALSE(nn::is_optimized_for_inference(plain));
  };
  refuses({{"conv", "bn9"}},
          "fp::nn::optimize_for_inference: chain {\"conv\", \"bn9\"} of "
          "OptimizeOptions::chains: fp::nn::Module::get_submodule:");
  refuses({{"relu", "conv"}},
          "chain {\"relu\", \"conv\"} of OptimizeOptions::chains: \"relu\" (ReLU) cannot "
          "start one; a chain is a convolution, then optionally its BatchNorm, then optionally "
          "an activation");
  refuses({{"conv", "relu", "bn"}}, "\"bn\" (BatchNorm2d) cannot follow \"relu\" (ReLU)");
  refuses({{"fc", "bn1d"}}, "\"bn1d\" (BatchNorm1d) cannot follow \"fc\" (Linear)");
  refuses({{"conv", "bn"}, {"conv", "relu"}}, "\"conv\" (Conv2d) is in another chain already");
  refuses({{}}, "chain {} of OptimizeOptions::chains: it is empty");
  WrongChain wrong;
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "chain {\"bn\", \"conv\"} of WrongChain (its fusable_chains()): \"bn\" "
                  "(BatchNorm2d) cannot start one",
                  nn::optimize_for_inference(wrong));
  // The same chain twice is one chain.
  const nn::OptimizeReport report = nn::optimize_for_inference(
      plain, {.chains = {{"conv", "bn", "relu"}, {"conv", "bn", "relu"}}});
  EXPECT_EQ(report.fused.front(),
            "conv + bn + relu: Conv2d, BatchNorm2d folded in, ReLU fused (oneDNN, pre-packed "
            "weight)");
}

TEST(OptimizeForInference, ReportsWhatItCannotFuse) {
  nn::Sequential net(nn::Conv2d(3, 4, 3, {.padding = 1, .padding_mode = "reflect"}),
                     nn::BatchNorm2d(4), nn::ReLU(), nn::Conv2d(4, 4, 3),
                     nn::BatchNorm2d(4, {.track_running_stats = false}), nn::ReLU(),
                     nn::Conv2d(4, 4, 1), nn::BatchNorm1d(4), nn::ConvTranspose1d(4, 4, 1));
  net.load_state_dict(nn_test::filled(net, 7));
  const nn::OptimizeReport report = nn::optimize_for_inference(net);
  EXPECT_EQ(report.fused,
            (std::vector<std::string>{
                "0 + 1 + 2: Conv2d, BatchNorm2d folded in, then ReLU (ATen's kernels: no oneDNN "
                "kernel for it here)",
                "3: Conv2d (oneDNN, pre-packed weight)",
                "6: Conv2d (oneDNN, pre-packed weight)",
            }));
  EXPECT_EQ(report.unchanged,
            (std::vector<std::string>{
                "4: BatchNorm2d: not folded into 3: it has no running statistics "
                "(track_running_stats=false), so it normalises with each batch's own",
                "7: BatchNorm1d: not folded into 6: a BatchNorm1d after a Conv2d takes other "
                "inputs",
                "8: ConvTranspose1d: oneDNN has no kernel for it here (its kind, dtype or "
                "options) and nothing is folded into it",
            }));
}

// --- each fused activation, against the same oneDNN kernel from Python --------------

/// A convolution (or linear layer) with weights drawn like Python's
/// `w`, `b` below, followed by `activation`, optimised.
template <class Head, class Activation>
nn::Sequential optimised(Head head, Activation activation) {
  nn::Sequential net(std::move(head), std::move(activation));
  fp::StateDict weights;
  weights.insert("0.weight", randn(nn_test::shape(net.at<Head>(0).weight), 2));
  weights.insert("0.bias", randn({4}, 3));
  net.load_state_dict(weights);
  const nn::OptimizeReport report = nn::optimize_for_inference(net);
  EXPECT_EQ(report.fused.size(), 1u);
  return net;
}

TEST(OptimizeForInference, FusesEachActivationAsFrozenInductorDoes) {
  /*
  #|PYTHON
  # What a frozen package calls for a convolution or linear layer followed by
  # each activation (torch/_inductor/fx_passes/mkldnn_fusion.py).
  x = torch.randn(2, 3, 6, 6, generator=g(1))
  w = torch.randn(4, 3, 3, 3, generator=g(2))
  b = torch.randn(4, generator=g(3))
  v = torch.randn(2, 5, generator=g(4))
  lw = torch.randn(4, 5, generator=g(2))
  # The weight pre-packed as optimize_for_inference packs it (oneDNN picks
  # other kernels for a packed weight under some ISAs, e.g. SSE4.1).
  packed = torch._C._nn.mkldnn_reorder_conv2d_weight(w.to_mkldnn(), [1, 1], [1, 1], [1, 1], 1)
  def conv(attr, scalars=(), algorithm=None):
      return values(torch.ops.mkldnn._convolution_pointwise(x, packed, b, [1, 1], [1, 1], [1, 1], 1, attr, list(scalars), algorithm))
  def linear(attr, scalars=(), algorithm=None):
      return values(torch.ops.mkldnn._linear_pointwise(v, lw, b, attr, list(scalars), algorithm))
  */
  const fp::Tensor x = randn({2, 3, 6, 6}, 1);
  const fp::Tensor v = randn({2, 5}, 4);
  const auto conv = [] { return nn::Conv2d(3, 4, 3, {.padding = 1}); };
  const auto linear = [] { return nn::Linear(5, 4); };
  EXPECT_PYTHON(values(optimised(conv(), nn::ReLU())(x)),
                truth<std::vector<float>>("conv('relu')"));
  EXPECT_PYTHON(values(optimised(conv(), nn::ReLU6())(x)),
                truth<std::vector<float>>("conv('hardtanh', [0.0, 6.0])"));
  EXPECT_PYTHON(values(optimised(conv(), nn::LeakyReLU(0.2))(x)),
                truth<std::vector<float>>("conv('leaky_relu', [0.2])"));
  EXPECT_PYTHON(values(optimised(conv(), nn::GELU())(x)),
                truth<std::vector<float>>("conv('gelu', [], 'none')"));
  EXPECT_PYTHON(values(optimised(conv(), nn::GELU("tanh"))(x)),
                truth<std::vector<float>>("conv('gelu', [], 'tanh')"));
  EXPECT_PYTHON(values(optimised(conv(), nn::SiLU())(x)),
                truth<std::vector<float>>("conv('swish')"));
  EXPECT_PYTHON(values(optimised(conv(), nn::Sigmoid())(x)),
                truth<std::vector<float>>("conv('sigmoid')"));
  EXPECT_PYTHON(values(optimised(conv(), nn::Tanh())(x)),
                truth<std::vector<float>>("conv('tanh')"));
  EXPECT_PYTHON(values(optimised(conv(), nn::Hardswish())(x)),
                truth<std::vector<float>>("conv('hardswish')"));
  EXPECT_PYTHON(values(optimised(linear(), nn::ReLU())(v)),
                truth<std::vector<float>>("linear('relu')"));
  EXPECT_PYTHON(values(optimised(linear(), nn::GELU("tanh"))(v)),
                truth<std::vector<float>>("linear('gelu', [], 'tanh')"));
  EXPECT_PYTHON(values(optimised(linear(), nn::SiLU())(v)),
                truth<std::vector<float>>("linear('swish')"));
}

TEST(OptimizeForInference, ConvAddIsTheExpressionUntilOptimised) {
  /*
  #|PYTHON
  x = torch.randn(2, 4, 5, 5, generator=g(1))
  other = torch.randn(2, 4, 5, 5, generator=g(2))
  conv = filled(torch.nn.Conv2d(4, 4, 3, padding=1, bias=False), 3)
  bn = filled(torch.nn.BatchNorm2d(4), 4)
  with torch.no_grad():
      out = bn(conv(x))
      out += other
      out = F.relu(out)
      plain = conv(x) + other
  */
  nn::Conv2d conv(4, 4, 3, {.padding = 1, .bias = false});
  nn::BatchNorm2d bn(4);
  conv.load_state_dict(nn_test::filled(conv, 3));
  bn.load_state_dict(nn_test::filled(bn, 4));
  const fp::Tensor x = randn({2, 5, 5}, 1);
  const fp::Tensor x4 = randn({2, 4, 5, 5}, 1);
  const fp::Tensor other = randn({2, 4, 5, 5}, 2);
  EXPECT_PYTHON(values(nn::conv_add(conv, bn, x4, other, true)),
                truth<std::vector<float>>("values(out)"));
  EXPECT_PYTHON(values(nn::conv_add(conv, x4, other)), truth<std::vector<float>>("values(plain)"));
  // `other` is the caller's to give away, but a copy of a tensor still in use
  // is written on its own: `other` keeps its values.
  EXPECT_EQ(values(other), values(randn({2, 4, 5, 5}, 2)));
  // Sizes that do not broadcast fail as `out += other` does.
  EXPECT_TORCH_ERROR("must match the size of tensor b",
                     (void)nn::conv_add(conv, bn, x4, randn({2, 3, 5, 5}, 2)));
  (void)x;
}

TEST(OptimizeForInference, ConvAddFusedIsOneDnnsBinaryConvolution) {
  /*
  #|PYTHON
  # What a frozen package calls for `relu(conv(x) + other)` with `other` in
  # channels-last memory format (mkldnn_fusion.py's binary fusion, in place).
  x = torch.randn(2, 4, 5, 5, generator=g(1))
  other = torch.randn(2, 4, 5, 5, generator=g(2)).contiguous(memory_format=torch.channels_last)
  w = torch.randn(4, 4, 3, 3, generator=g(3))
  b = torch.randn(4, generator=g(4))
  packed = torch._C._nn.mkldnn_reorder_conv2d_weight(w.to_mkldnn(), [1, 1], [1, 1], [1, 1], 1)
  torch.ops.mkldnn._convolution_pointwise_.binary(other, x, packed, b, [1, 1], [1, 1], [1, 1], 1, "add", None, "relu", [], None)
  */
  nn::Conv2d conv(4, 4, 3, {.padding = 1});
  fp::StateDict weights;
  weights.insert("weight", randn({4, 4, 3, 3}, 3));
  weights.insert("bias", randn({4}, 4));
  conv.load_state_dict(weights);
  const fp::Tensor x = randn({2, 4, 5, 5}, 1);
  const auto other = [] {
    return fp::aten::clone(randn({2, 4, 5, 5}, 2), fp::MemoryFormat::ChannelsLast);
  };
  const nn::OptimizeReport report = nn::optimize_for_inference(conv);
  EXPECT_EQ(report.fused,
            std::vector<std::string>{"(the module itself): Conv2d (oneDNN, pre-packed weight)"});
  EXPECT_PYTHON(values(nn::conv_add(conv, x, other(), /*relu=*/true)),
                truth<std::vector<float>>("values(other)"));
}

/// A residual block's end, as fp::vision's ResNet blocks write it.
struct Residual : nn::Module {
  nn::Conv2d conv{4, 4, 3, {.padding = 1, .bias = false}};
  nn::BatchNorm2d bn{4};
  FP_MODULE(conv, bn)
  std::vector<std::vector<std::string>> fusable_chains() const override { return {{"conv", "bn"}}; }
  fp::Tensor forward(fp::TensorView x) const override {
    return nn::conv_add(conv, bn, x, x.to_owned(), /*relu=*/true);
  }
};

TEST(OptimizeForInference, ConvAddFusedAddsInPlaceOnlyIntoItsOwnCopy) {
  Residual block;
  block.load_state_dict(nn_test::filled(block, 5));
  const fp::Tensor x = fp::aten::clone(randn({2, 4, 5, 5}, 1), fp::MemoryFormat::ChannelsLast);
  const fp::Tensor before = x.to_owned();
  nn::optimize_for_inference(block);
  const fp::Tensor fused = block(x);
  // The input, whose memory the shortcut shares, is unchanged.
  EXPECT_TRUE(bit_equal(x, before));
  // Into a tensor that is not channels-last the kernel cannot add: the
  // convolution, then the add, give the same values
  const fp::Tensor unfused =
      nn::conv_add(block.conv, block.bn, x, fp::aten::clone(x, fp::MemoryFormat::Contiguous), true);
  // (oneDNN held to SSE4.1 adds the shortcut in another order than
  // ATen's add: the last bit may differ there.)
  EXPECT_LT(difference(fused, unfused).relative, 1e-6);
  Residual eager;
  eager.load_state_dict(nn_test::filled(eager, 5));
  EXPECT_LT(difference(fused, eager(x)).relative, 1e-5);
}

TEST(OptimizeForInference, ThreadsShareAnOptimisedModel) {
  FusedNet net = loaded_net();
  const fp::Tensor x = net_input();
  nn::optimize_for_inference(net);
  const fp::Tensor expected = net(x);
  std::vector<std::thread> threads;
  std::atomic<int> equal{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 3; ++i)
        equal += bit_equal(net(x), expected) ? 1 : 0;
    });
  }
  for (auto& thread : threads)
    thread.join();
  EXPECT_EQ(equal.load(), 12);
}

TEST(OptimizeForInference, ThreadsShareTheEagerPathMadeOnFirstUse) {
  // An unbatched input takes the eager path, whose layer (the folded
  // convolution) is made on its first use: here by four threads at once.
  const auto optimised_block = [] {
    auto block =
        std::make_unique<nn::Sequential>(nn::Conv2d(3, 4, 3), nn::BatchNorm2d(4), nn::ReLU());
    block->load_state_dict(nn_test::filled(*block, 9));
    nn::optimize_for_inference(*block);
    return block;
  };
  const auto shared = optimised_block();
  const fp::Tensor image = randn({3, 16, 16}, 6);
  const fp::Tensor expected = (*optimised_block())(image);
  std::vector<std::thread> threads;
  std::atomic<int> equal{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] { equal += bit_equal((*shared)(image), expected) ? 1 : 0; });
  for (auto& thread : threads)
    thread.join();
  EXPECT_EQ(equal.load(), 4);
}

// --- fp::aten::mkldnn ------------------------------------------------------------------

TEST(MkldnnOps, TakeCpuTensorsOnly) {
  ASSERT_TRUE(fp::aten::mkldnn::available());
  const fp::Tensor w = randn({4, 3, 3, 3}, 2);
  const fp::Tensor meta = fp::empty({1, 3, 6, 6}, fp::Device::meta());
  EXPECT_FP_ERROR(fp::ErrorCode::Unsupported,
                  "mkldnn::_convolution_pointwise: oneDNN's fused kernels take CPU tensors only; "
                  "got a tensor on meta",
                  (void)fp::aten::mkldnn::_convolution_pointwise(meta, w, std::nullopt, {1, 1},
                                                                 {1, 1}, {1, 1}, 1));
  EXPECT_FP_ERROR(fp::ErrorCode::Unsupported, "got a tensor on meta",
                  (void)fp::aten::mkldnn::_linear_pointwise(
                      randn({2, 3}, 1), fp::empty({4, 3}, fp::Device::meta()), std::nullopt));
  EXPECT_FP_ERROR(
      fp::ErrorCode::Unsupported,
      "mkldnn::_linear_pointwise: oneDNN's fused kernels take CPU tensors only; got "
      "an undefined tensor",
      (void)fp::aten::mkldnn::_linear_pointwise(fp::Tensor(), randn({4, 3}, 2), std::nullopt));
  // libtorch's own checks come through with its words.
  EXPECT_TORCH_ERROR(
      "Fusion behavior undefined",
      (void)fp::aten::mkldnn::_convolution_pointwise(randn({1, 3, 6, 6}, 1), w, std::nullopt,
                                                     {1, 1}, {1, 1}, {1, 1}, 1, {.attr = "bogus"}));
}

}  // namespace
