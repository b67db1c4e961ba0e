// fp::nn::Sequential, ModuleList and ModuleDict against torch.nn's.
#include <gtest/gtest.h>

#include <flash_powder/aten/aten.h>
#include <flash_powder/flash_powder.h>
#include <sys/resource.h>

#include <type_traits>

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#include "nn/helpers.h"
#include "support/expect_error.h"
#include "support/string_leak.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import torch.nn as nn
from collections import OrderedDict
from truth_helpers import g, values, filled
*/

namespace {

using fp_test::truth;

using nn_test::keys;
using nn_test::randn;
using nn_test::values;

static_assert(!std::is_copy_constructible_v<fp::nn::Sequential>, "containers are move-only");
static_assert(std::is_nothrow_move_constructible_v<fp::nn::Sequential>);
static_assert(std::is_move_constructible_v<fp::nn::ModuleDict>);
// ModuleList and ModuleDict only hold modules (of any kind): they have no forward.
static_assert(!std::is_invocable_v<const fp::nn::ModuleList&, const fp::Tensor&>);
static_assert(!std::is_invocable_v<const fp::nn::ModuleDict&, const fp::Tensor&>);
static_assert(!std::is_invocable_v<const fp::nn::ModuleListOf<fp::nn::ReLU>&, const fp::Tensor&>);

TEST(Sequential, KeysAndOutputArePyTorchs) {
  /*
  #|PYTHON
  inner = nn.Sequential(nn.Linear(4, 4), nn.Tanh())
  seq = filled(nn.Sequential(nn.Linear(3, 4), nn.ReLU(), inner, nn.BatchNorm1d(4)))
  x = torch.randn(5, 3, generator=g(1))
  with torch.no_grad():
      y = seq(x)
  */
  fp::nn::Sequential inner(fp::nn::Linear(4, 4), fp::nn::Tanh());
  fp::nn::Sequential seq(fp::nn::Linear(3, 4), fp::nn::ReLU());
  seq.push(std::move(inner)).push(fp::nn::BatchNorm1d(4));
  EXPECT_EQ(keys(seq), (std::vector<std::string>{
                           "0.weight", "0.bias", "2.0.weight", "2.0.bias", "3.weight", "3.bias",
                           "3.running_mean", "3.running_var",
                           "3.num_batches_tracked"}));  // #PYTHON list(seq.state_dict().keys())
  seq.load_state_dict(nn_test::filled(seq));
  const fp::Tensor x = randn({5, 3}, 1);
  EXPECT_PYTHON(values(seq(x)), truth<std::vector<float>>("values(y)"));
  EXPECT_EQ(seq.size(), 4u);  // #PYTHON len(seq)
}

TEST(Sequential, LinearThenGeluGivesPyTorchsNumbers) {
  // Sequential runs a Linear followed by a GELU() as one _addmm_activation
  // call on the CPU (float32/float64, a bias, a contiguous input); elsewhere
  // as two layers. Either way the numbers are PyTorch's bit for bit; the
  // hidden width of 300 makes a different arithmetic (mm, then the bias
  // added) round differently.
  /*
  #|PYTHON
  import copy
  def mlp_of():
      return nn.Sequential(nn.Linear(37, 300), nn.GELU(), nn.Dropout(0.1), nn.Linear(300, 37), nn.GELU())
  mlp = filled(mlp_of(), scale=0.1)
  wide = copy.deepcopy(mlp).double()
  no_bias = filled(nn.Sequential(nn.Linear(37, 20, bias=False), nn.GELU()), scale=0.1)
  x2 = torch.randn(6, 37, generator=g(3))
  x3 = torch.randn(2, 3, 37, generator=g(4))
  x4 = torch.randn(2, 2, 3, 37, generator=g(5))
  with torch.no_grad():
      y2, y3, y4 = mlp(x2), mlp(x3), mlp(x4)
      y_transposed = mlp(x3.transpose(0, 1))
      after_relu = filled(nn.Sequential(nn.ReLU(), *mlp_of()), scale=0.1)
      y_after_relu = after_relu(x2)
      y64 = wide(x3.double())
      y_no_bias = no_bias(x2)
  */
  const auto mlp_of = [] {
    return fp::nn::Sequential(fp::nn::Linear(37, 300), fp::nn::GELU(), fp::nn::Dropout(0.1),
                              fp::nn::Linear(300, 37), fp::nn::GELU());
  };
  fp::nn::Sequential mlp = mlp_of();
  mlp.load_state_dict(nn_test::filled(mlp, 100, 0.1f));
  const fp::Tensor x2 = randn({6, 37}, 3);
  const fp::Tensor x3 = randn({2, 3, 37}, 4);
  EXPECT_PYTHON(values(mlp(x2)), truth<std::vector<float>>("values(y2)"));
  EXPECT_PYTHON(values(mlp(x3)), truth<std::vector<float>>("values(y3)"));
  EXPECT_PYTHON(values(mlp(randn({2, 2, 3, 37}, 5))), truth<std::vector<float>>("values(y4)"));
  // Not contiguous: the two layers, as aten::linear then folds the input.
  EXPECT_PYTHON(values(mlp(x3.transpose(0, 1))), truth<std::vector<float>>("values(y_transposed)"));

  // A pair after another module (the loop's own result as its input).
  fp::nn::Sequential after_relu(fp::nn::ReLU(), fp::nn::Linear(37, 300), fp::nn::GELU(),
                                fp::nn::Dropout(0.1), fp::nn::Linear(300, 37), fp::nn::GELU());
  after_relu.load_state_dict(nn_test::filled(after_relu, 100, 0.1f));
  EXPECT_PYTHON(values(after_relu(x2)), truth<std::vector<float>>("values(y_after_relu)"));

  fp::nn::Sequential wide = mlp_of();
  wide.load_state_dict(mlp.state_dict());
  wide.to(fp::DType::F64);
  EXPECT_PYTHON(wide(x3.to(fp::DType::F64)).to_vector<double>(),
                truth<std::vector<double>>("values(y64)"));

  fp::nn::Sequential no_bias(fp::nn::Linear(37, 20, {.bias = false}), fp::nn::GELU());
  no_bias.load_state_dict(nn_test::filled(no_bias, 100, 0.1f));
  EXPECT_PYTHON(values(no_bias(x2)), truth<std::vector<float>>("values(y_no_bias)"));

  // A wrong input is the Linear's error, named by its place.
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "0: aten::linear", mlp(randn({6, 36}, 3)));
}

TEST(Sequential, LinearThenGeluTanhRunsAsTwoLayers) {
  /*
  #|PYTHON
  tanh = filled(nn.Sequential(nn.Linear(37, 20), nn.GELU(approximate="tanh")), scale=0.1)
  with torch.no_grad():
      y_tanh = tanh(torch.randn(6, 37, generator=g(3)))
  */
  // gelu's tanh approximation has no string-free route (src/aten/string_free.h).
  FP_SKIP_UNDER_LEAK_CHECKERS_WHERE_TORCH_LEAKS_STRINGS();
  fp::nn::Sequential tanh(fp::nn::Linear(37, 20), fp::nn::GELU("tanh"));
  tanh.load_state_dict(nn_test::filled(tanh, 100, 0.1f));
  EXPECT_PYTHON(values(tanh(randn({6, 37}, 3))), truth<std::vector<float>>("values(y_tanh)"));
}

TEST(Sequential, NamedEntriesAndTypedAccess) {
  /*
  #|PYTHON
  seq = nn.Sequential(OrderedDict([("conv", nn.Conv2d(1, 2, 3)), ("act", nn.ReLU())]))
  */
  fp::nn::Sequential seq;
  seq.push("conv", fp::nn::Conv2d(1, 2, 3)).push("act", fp::nn::ReLU());
  EXPECT_EQ(keys(seq), (std::vector<std::string>{
                           "conv.weight", "conv.bias"}));  // #PYTHON list(seq.state_dict().keys())
  fp::nn::Conv2d& conv = seq.at<fp::nn::Conv2d>(0);
  EXPECT_EQ(conv.out_channels, 2);
  EXPECT_EQ(&seq[-2], &conv);
  EXPECT_EQ(seq[1].type_name(), "ReLU");
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::Sequential: module 1 is a ReLU, not a fp::nn::Conv2d",
                  seq.at<fp::nn::Conv2d>(1));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::Sequential: index 2 is out of range for 2 modules", seq[2]);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::Sequential: the name \"act\" is already taken",
                  seq.push("act", fp::nn::Tanh()));
}

TEST(Sequential, EmptyPassesTheInputThrough) {
  const fp::nn::Sequential empty;
  const fp::Tensor x = randn({2, 2}, 1);
  EXPECT_EQ(values(empty(x)), values(x));
}

TEST(Sequential, RunsReLUInPlaceOnlyOnResultsItOwns) {
  /*
  #|PYTHON
  seq = filled(nn.Sequential(nn.Linear(3, 4), nn.ReLU(inplace=True), nn.ReLU()))
  x = torch.randn(5, 3, generator=g(2))
  with torch.no_grad():
      y = seq(x)
  */
  fp::nn::Sequential seq(fp::nn::Linear(3, 4), fp::nn::ReLU(), fp::nn::ReLU());
  seq.load_state_dict(nn_test::filled(seq));
  const fp::Tensor x = randn({5, 3}, 2);
  EXPECT_PYTHON(values(seq(x)), truth<std::vector<float>>("values(y)"));

  // The caller's input is never overwritten: not as the first module's
  // input, nor when a module hands back a (lazy) copy of it.
  const std::vector<float> before = values(x);
  const fp::nn::Sequential first_relu{fp::nn::ReLU()};
  const fp::nn::Sequential after_identity{fp::nn::Identity(), fp::nn::ReLU()};
  EXPECT_EQ(values(first_relu(x)), values(fp::functional::relu(x)));
  EXPECT_EQ(values(after_identity(x)), values(fp::functional::relu(x)));
  EXPECT_EQ(values(x), before);
}

long minor_page_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

TEST(Sequential, FirstModuleReadsTheCallersInputWithoutCopyingIt) {
  if (RUNNING_ON_VALGRIND) GTEST_SKIP() << "valgrind's malloc maps memory its own way";
  // With one thread a 1x1 convolution runs libtorch's thnn kernel, which asks
  // for its input's data as writable: given a lazy copy of the input, it
  // would copy all of it first (48 MiB here, 12,288 freshly mapped pages).
  const int threads = fp::get_num_threads();
  fp::set_num_threads(1);
  fp::nn::Sequential seq{fp::nn::Conv2d(1, 1, 1, {.bias = false})};
  const fp::nn::Conv2d& conv = seq.at<fp::nn::Conv2d>(0);
  const fp::Tensor x = fp::ones({1, 1, 3072, 4096});
  long before = minor_page_faults();
  const fp::Tensor direct = conv(x);  // the output's own pages
  const long conv_faults = minor_page_faults() - before;
  before = minor_page_faults();
  const fp::Tensor through_seq = seq(x);
  const long seq_faults = minor_page_faults() - before;
  fp::set_num_threads(threads);
  EXPECT_LT(seq_faults - conv_faults, 1024);
  EXPECT_TRUE(fp::aten::equal(direct, through_seq));
}

TEST(Sequential, ReLUInPlaceKeepsForwardsValuesAndErrors) {
  const fp::nn::ReLU relu;
  fp::Tensor floats = randn({4, 3}, 3);
  const fp::Tensor expected = relu(floats);
  EXPECT_TRUE(relu.forward_in_place(floats));
  EXPECT_EQ(values(floats), values(expected));
  // Other dtypes take forward(), so a bool input fails as it always did.
  fp::Tensor flags = fp::tensor({true, false});
  EXPECT_FALSE(relu.forward_in_place(flags));
  const fp::nn::Sequential seq{fp::nn::Identity(), fp::nn::ReLU()};
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::TorchError,
      "1: " + fp_test::torch_error_exact("aten::relu", "Boolean inputs not supported for relu"),
      seq(flags));
}

TEST(ModuleList, KeysAndTypedAccess) {
  /*
  #|PYTHON
  layers = nn.ModuleList([nn.Linear(2, 3), nn.Linear(3, 1, bias=False)])
  */
  fp::nn::ModuleList layers;
  layers.push(fp::nn::Linear(2, 3)).push(fp::nn::Linear(3, 1, {.bias = false}));
  EXPECT_EQ(keys(layers),
            (std::vector<std::string>{"0.weight", "0.bias",
                                      "1.weight"}));  // #PYTHON list(layers.state_dict().keys())
  EXPECT_EQ(layers.at<fp::nn::Linear>(-1).out_features, 1);
  const fp::Tensor x = randn({2, 2}, 1);
  const fp::Tensor h = layers.at<fp::nn::Linear>(0)(x);
  EXPECT_EQ(nn_test::shape(layers.at<fp::nn::Linear>(1)(h)), (std::vector<int64_t>{2, 1}));
}

TEST(ModuleDict, KeysReplaceInPlaceAndMissingKeys) {
  /*
  #|PYTHON
  d = nn.ModuleDict()
  d["encoder"] = nn.Linear(2, 2)
  d["norm"] = nn.LayerNorm(2)
  d["encoder"] = nn.Linear(2, 2, bias=False)
  */
  fp::nn::ModuleDict d;
  d.insert("encoder", fp::nn::Linear(2, 2)).insert("norm", fp::nn::LayerNorm(2));
  d.insert("encoder", fp::nn::Linear(2, 2, {.bias = false}));
  EXPECT_EQ(keys(d),
            (std::vector<std::string>{"encoder.weight", "norm.weight",
                                      "norm.bias"}));  // #PYTHON list(d.state_dict().keys())
  EXPECT_EQ(d.keys(), (std::vector<std::string>{"encoder", "norm"}));  // #PYTHON list(d.keys())
  EXPECT_TRUE(d.contains("norm"));
  EXPECT_EQ(d.at<fp::nn::LayerNorm>("norm").normalized_shape, (std::vector<int64_t>{2}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::ModuleDict: no module under the key \"decoder\"", d["decoder"]);
}

TEST(Containers, HoldUserModulesAndLoadThroughThem) {
  struct Scale : fp::nn::Module {
    fp::Tensor factor = fp::ones({1});
    void visit(fp::nn::Visitor& v) override { v.parameter("factor", factor); }
    fp::Tensor forward(fp::TensorView x) const override {
      return fp::dispatch<fp::Tensor>("aten::mul", "Tensor", x, factor);
    }
  };
  fp::nn::Sequential seq{Scale(), Scale()};
  fp::StateDict source;
  source.insert("0.factor", fp::tensor(std::vector<float>{2.f}));
  source.insert("1.factor", fp::tensor(std::vector<float>{3.f}));
  seq.load_state_dict(source);
  const fp::Tensor x = fp::ones({2});
  EXPECT_PYTHON(values(seq(x)), (std::vector<float>{6.f, 6.f}));
  fp::nn::Sequential moved = std::move(seq);
  EXPECT_PYTHON(values(moved(x)), (std::vector<float>{6.f, 6.f}));
}

}  // namespace
