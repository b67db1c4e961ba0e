// fp::functional activations against torch.nn.functional, bit for bit (elu:
// to within the 1 ulp its doc comment explains).
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include <numeric>

#include "nn/helpers.h"
#include "support/expect_error.h"
#include "support/string_leak.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import torch.nn.functional as F
from truth_helpers import g, values
*/

namespace {

using fp_test::truth;

namespace F = fp::functional;
using nn_test::randn;
using nn_test::values;

TEST(FunctionalActivation, GeneratorMatchesPython) {
  /*
  #|PYTHON
  x = torch.randn(2, 3, generator=g(1))
  */
  EXPECT_PYTHON(values(randn({2, 3}, 1)), truth<std::vector<float>>("values(x)"));
}

TEST(FunctionalActivation, Simple) {
  /*
  #|PYTHON
  x = torch.randn(2, 5, generator=g(2)) * 4
  */
  const fp::Tensor x =
      fp::dispatch<fp::Tensor>("aten::mul", "Tensor", randn({2, 5}, 2), fp::tensor(4.f));
  EXPECT_PYTHON(values(F::relu(x)), truth<std::vector<float>>("values(F.relu(x))"));
  EXPECT_PYTHON(values(F::relu6(x)), truth<std::vector<float>>("values(F.relu6(x))"));
  EXPECT_PYTHON(values(F::silu(x)), truth<std::vector<float>>("values(F.silu(x))"));
  EXPECT_PYTHON(values(F::sigmoid(x)), truth<std::vector<float>>("values(F.sigmoid(x))"));
  EXPECT_PYTHON(values(F::tanh(x)), truth<std::vector<float>>("values(F.tanh(x))"));
  EXPECT_PYTHON(values(F::hardswish(x)), truth<std::vector<float>>("values(F.hardswish(x))"));
  EXPECT_PYTHON(values(F::gelu(x)), truth<std::vector<float>>("values(F.gelu(x))"));
}

TEST(FunctionalActivation, GeluTanhAndItsLayer) {
  /*
  #|PYTHON
  x = torch.randn(2, 5, generator=g(2)) * 4
  */
  // gelu's tanh approximation has no string-free route (src/aten/string_free.h).
  FP_SKIP_UNDER_LEAK_CHECKERS_WHERE_TORCH_LEAKS_STRINGS();
  const fp::Tensor x =
      fp::dispatch<fp::Tensor>("aten::mul", "Tensor", randn({2, 5}, 2), fp::tensor(4.f));
  EXPECT_PYTHON(values(F::gelu(x, {.approximate = "tanh"})),
                truth<std::vector<float>>(R"(values(F.gelu(x, approximate="tanh")))"));
  EXPECT_PYTHON(values(fp::nn::GELU("tanh")(x)),
                truth<std::vector<float>>(R"(values(torch.nn.GELU("tanh")(x)))"));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::gelu", F::gelu(x, {.approximate = "sigmoid"}));
}

TEST(FunctionalActivation, LeakyReluIsBitExact) {
  /*
  #|PYTHON
  x = torch.randn(3, 7, generator=g(3))
  big = torch.randn(4099, generator=g(4))
  def same(slope, t, dtype=torch.float32):
      return F.leaky_relu(t.to(dtype), slope).to(torch.float64).flatten().tolist()
  */
  const fp::Tensor x = randn({3, 7}, 3);
  EXPECT_PYTHON(values(F::leaky_relu(x)), truth<std::vector<float>>("values(F.leaky_relu(x))"));
  EXPECT_PYTHON(values(F::leaky_relu(x, {.negative_slope = 0.2})),
                truth<std::vector<float>>("values(F.leaky_relu(x, 0.2))"));
  EXPECT_PYTHON(values(F::leaky_relu(x, {.negative_slope = -1.7})),
                truth<std::vector<float>>("values(F.leaky_relu(x, -1.7))"));
  // Long enough for libtorch's vectorised loop and its remainder.
  const fp::Tensor big = randn({4099}, 4);
  const auto mine = F::leaky_relu(big, {.negative_slope = 0.3}).to_vector<double>();
  EXPECT_EQ(std::accumulate(mine.begin(), mine.end(), 0.0), truth<double>("sum(same(0.3, big))"));
  const fp::Tensor doubles = fp::dispatch<fp::Tensor>("aten::_to_copy", "", x, fp::DType::F64);
  EXPECT_PYTHON(F::leaky_relu(doubles, {.negative_slope = 0.3}).to_vector<double>(),
                truth<std::vector<double>>("same(0.3, x, torch.float64)"));
  const fp::Tensor halves = fp::dispatch<fp::Tensor>("aten::_to_copy", "", x, fp::DType::BF16);
  EXPECT_PYTHON(F::leaky_relu(halves, {.negative_slope = 0.3}).to_vector<double>(),
                truth<std::vector<double>>("same(0.3, x, torch.bfloat16)"));
}

TEST(FunctionalActivation, EluWithinOneUlp) {
  /*
  #|PYTHON
  x = torch.randn(5, 9, generator=g(5)) * 3
  */
  const fp::Tensor x =
      fp::dispatch<fp::Tensor>("aten::mul", "Tensor", randn({5, 9}, 5), fp::tensor(3.f));
  const std::vector<float> expected = truth<std::vector<float>>("values(F.elu(x))");
  EXPECT_CLOSE(F::elu(x), 1.2e-7, expected);
  const std::vector<float> scaled = truth<std::vector<float>>("values(F.elu(x, 0.7))");
  EXPECT_CLOSE(F::elu(x, {.alpha = 0.7}), 1.2e-7, scaled);
}

TEST(FunctionalActivation, Softmax) {
  /*
  #|PYTHON
  x = torch.randn(2, 3, 4, generator=g(6))
  */
  const fp::Tensor x = randn({2, 3, 4}, 6);
  EXPECT_PYTHON(values(F::softmax(x, -1)), truth<std::vector<float>>("values(F.softmax(x, -1))"));
  EXPECT_PYTHON(values(F::softmax(x, 1)), truth<std::vector<float>>("values(F.softmax(x, 1))"));
  EXPECT_PYTHON(values(F::log_softmax(x, 0)),
                truth<std::vector<float>>("values(F.log_softmax(x, 0))"));
  const fp::Tensor wide = F::softmax(x, -1, {.dtype = fp::DType::F64});
  EXPECT_EQ(wide.dtype(), fp::DType::F64);  // #PYTHON F.softmax(x, -1, dtype=torch.float64).dtype
  EXPECT_PYTHON(wide.to_vector<double>(),
                truth<std::vector<double>>("values(F.softmax(x, -1, dtype=torch.float64))"));
}

TEST(FunctionalActivation, BadInput) {
  const fp::Tensor integers = fp::tensor({1, 2, 3});
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::leaky_relu: expected a floating-point input, got int32",
                  F::leaky_relu(integers));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::elu: expected a floating-point input, got int32",
                  F::elu(integers));
  const fp::Tensor x = randn({2, 3}, 1);
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::hardswish", F::hardswish(integers));
  EXPECT_TORCH_ERROR("Dimension out of range", F::softmax(x, 2));
}

}  // namespace
