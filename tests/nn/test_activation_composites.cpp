// The activations whose libtorch kernel takes a Python number (threshold,
// hardtanh, softplus, celu, softshrink, hardshrink, rrelu) against
// torch.nn.functional, bit for bit in every floating dtype: the inputs hold
// the values at each function's boundaries (0, -0, +-0.5, +-1, +-3, +-6,
// +-20, ...), infinities and NaN, in libtorch's vectorised loop and in its
// remainder, contiguous and not. softplus and celu are compared in ulp, as
// their doc comments explain.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "nn/activation_bits.h"
#include "nn/helpers.h"
#include "support/expect_error.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import torch.nn.functional as F
from activation_bits import bits, per_dtype, inputs, strided, nan
from truth_helpers import g, values
*/

// A named namespace: the unity build compiles this file with others.
namespace activation_composites_test {

using fp_test::truth;

namespace F = fp::functional;
using nn_test::bits;
using nn_test::Bits;
using nn_test::input;
using nn_test::max_ulp;
using nn_test::per_dtype;
using nn_test::strided;

TEST(ActivationComposites, ThresholdIsBitExact) {
  /*
  #|PYTHON
  x = inputs(1)
  */
  const fp::Tensor x = input(truth<std::vector<double>>("values(x)"));
  EXPECT_BITS(per_dtype(x, [](const fp::Tensor& t) { return F::threshold(t, 0.1, 20.0); }),
              truth<Bits>("per_dtype(x, lambda t: F.threshold(t, 0.1, 20.))"));
  EXPECT_BITS(per_dtype(x, [](const fp::Tensor& t) { return F::threshold(t, -1.0, -7.0); }),
              truth<Bits>("per_dtype(x, lambda t: F.threshold(t, -1., -7.))"));
  EXPECT_BITS(per_dtype(x, [](const fp::Tensor& t) { return F::threshold(t, 3.0, 0.3); }),
              truth<Bits>("per_dtype(x, lambda t: F.threshold(t, 3., 0.3))"));
  EXPECT_BITS(per_dtype(strided(x), [](const fp::Tensor& t) { return F::threshold(t, 0.0, 0.5); }),
              truth<Bits>("per_dtype(strided(x), lambda t: F.threshold(t, 0., 0.5))"));
  EXPECT_BITS(per_dtype(x, [](const fp::Tensor& t) { return F::threshold(t, 1.0, std::nan("")); }),
              truth<Bits>("per_dtype(x, lambda t: F.threshold(t, 1., nan))"));
}

TEST(ActivationComposites, ThresholdOfIntegersTruncatesItsNumbers) {
  /*
  #|PYTHON
  i = torch.tensor([-3, -1, 0, 1, 2, 5], dtype=torch.int32)
  u = torch.tensor([0, 1, 2, 5, 200], dtype=torch.uint8)
  */
  const fp::Tensor i = fp::tensor({-3, -1, 0, 1, 2, 5});
  const fp::Tensor u = fp::tensor({0, 1, 2, 5, 200}, fp::DType::U8);
  const fp::Tensor a = F::threshold(i, 0.5, -2.7);
  EXPECT_EQ(a.dtype(), fp::DType::I32);  // #PYTHON F.threshold(i, 0.5, -2.7).dtype
  EXPECT_EQ(a.to_vector<std::int64_t>(),
            truth<std::vector<std::int64_t>>("values(F.threshold(i, 0.5, -2.7))"));
  EXPECT_EQ(F::threshold(i, -0.5, 7.0).to_vector<std::int64_t>(),
            truth<std::vector<std::int64_t>>("values(F.threshold(i, -0.5, 7.))"));
  EXPECT_EQ(F::threshold(u, 2.0, 9.0).to_vector<std::int64_t>(),
            truth<std::vector<std::int64_t>>("values(F.threshold(u, 2., 9.))"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::threshold: threshold 1e+10 cannot be converted to int32 "
                  "without overflow",
                  F::threshold(i, 1e10, 0.0));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::threshold: value -1.5 cannot be converted to uint8 without "
                  "overflow",
                  F::threshold(u, 1.0, -1.5));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::threshold: not implemented for bool, as in PyTorch",
                  F::threshold(fp::tensor({true, false}), 0.5, 1.0));
}

TEST(ActivationComposites, HardtanhIsBitExact) {
  /*
  #|PYTHON
  x = inputs(1)
  i = torch.tensor([-3, -1, 0, 1, 2, 5], dtype=torch.int32)
  */
  const fp::Tensor x = input(truth<std::vector<double>>("values(x)"));
  EXPECT_BITS(per_dtype(x, [](const fp::Tensor& t) { return F::hardtanh(t); }),
              truth<Bits>("per_dtype(x, F.hardtanh)"));
  EXPECT_BITS(
      per_dtype(
          x, [](const fp::Tensor& t) { return F::hardtanh(t, {.min_val = -0.1, .max_val = 1.3}); }),
      truth<Bits>("per_dtype(x, lambda t: F.hardtanh(t, -0.1, 1.3))"));
  EXPECT_BITS(per_dtype(strided(x),
                        [](const fp::Tensor& t) {
                          return F::hardtanh(t, {.min_val = 0.0, .max_val = 6.0});
                        }),
              truth<Bits>("per_dtype(strided(x), lambda t: F.hardtanh(t, 0., 6.))"));
  EXPECT_BITS(
      per_dtype(
          x, [](const fp::Tensor& t) { return F::hardtanh(t, {.min_val = 0.5, .max_val = 0.5}); }),
      truth<Bits>("per_dtype(x, lambda t: F.hardtanh(t, 0.5, 0.5))"));
  const fp::Tensor i = fp::tensor({-3, -1, 0, 1, 2, 5});
  EXPECT_EQ(F::hardtanh(i, {.min_val = -1.5, .max_val = 1.7}).to_vector<std::int64_t>(),
            truth<std::vector<std::int64_t>>("values(F.hardtanh(i, -1.5, 1.7))"));
}

TEST(ActivationComposites, HardtanhBadInput) {
  const fp::Tensor x = nn_test::randn({4}, 2);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::hardtanh: min_val cannot be greater than max_val",
                  F::hardtanh(x, {.min_val = 2.0, .max_val = 1.0}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::hardtanh: Bool inputs not supported for hardtanh",
                  F::hardtanh(fp::tensor({true, false})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::hardtanh: cannot do hardtanh on an unsigned type with negative "
                  "limits",
                  F::hardtanh(fp::tensor({1, 2}, fp::DType::U8)));
}

TEST(ActivationComposites, SoftplusWithinTwoUlp) {
  /*
  #|PYTHON
  x = inputs(3)
  */
  const fp::Tensor x = input(truth<std::vector<double>>("values(x)"));
  const auto with = [](double beta, double threshold) {
    return
        [=](const fp::Tensor& t) { return F::softplus(t, {.beta = beta, .threshold = threshold}); };
  };
  // Up to 2 ulp (float32, float64) and 1 ulp (float16, bfloat16), as
  // functional/activation.h explains: libtorch's kernel and ATen's exp and
  // log1p ops evaluate the functions with different vectorised code.
  const auto check = [](const Bits& actual, const Bits& expected) {
    ASSERT_EQ(actual.size(), 4U);
    EXPECT_LE(max_ulp({actual[0], actual[1]}, {expected[0], expected[1]}), 2);
    EXPECT_LE(max_ulp({actual[2], actual[3]}, {expected[2], expected[3]}), 1);
  };
  check(per_dtype(x, with(1.0, 20.0)), truth<Bits>("per_dtype(x, F.softplus)"));
  check(per_dtype(x, with(2.0, 10.0)),
        truth<Bits>("per_dtype(x, lambda t: F.softplus(t, 2., 10.))"));
  check(per_dtype(x, with(0.5, 3.0)),
        truth<Bits>("per_dtype(x, lambda t: F.softplus(t, 0.5, 3.))"));
  check(per_dtype(strided(x), with(-1.0, 1.0)),
        truth<Bits>("per_dtype(strided(x), lambda t: F.softplus(t, -1., 1.))"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::softplus: expected a floating-point input, got int32",
                  F::softplus(fp::tensor({1, 2})));
}

TEST(ActivationComposites, CeluWithinTwoUlp) {
  /*
  #|PYTHON
  x = inputs(4)
  */
  const fp::Tensor x = input(truth<std::vector<double>>("values(x)"));
  const auto with = [](double alpha) {
    return [=](const fp::Tensor& t) { return F::celu(t, {.alpha = alpha}); };
  };
  // Up to 2 ulp where libtorch's kernel takes its scalar remainder loop
  // (functional/activation.h); float16/bfloat16 round the float32 value.
  const auto check = [](const Bits& actual, const Bits& expected) {
    ASSERT_EQ(actual.size(), 4U);
    EXPECT_LE(max_ulp({actual[0], actual[1]}, {expected[0], expected[1]}), 2);
    EXPECT_LE(max_ulp({actual[2], actual[3]}, {expected[2], expected[3]}), 1);
  };
  check(per_dtype(x, with(1.0)), truth<Bits>("per_dtype(x, F.celu)"));
  check(per_dtype(x, with(0.7)), truth<Bits>("per_dtype(x, lambda t: F.celu(t, 0.7))"));
  check(per_dtype(strided(x), with(2.5)),
        truth<Bits>("per_dtype(strided(x), lambda t: F.celu(t, 2.5))"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::functional::celu: alpha cannot be 0 for CELU",
                  F::celu(x, {.alpha = 0.0}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::celu: expected a floating-point input, got int32",
                  F::celu(fp::tensor({1, 2})));
}

TEST(ActivationComposites, SoftshrinkEqualsPythonUpToTheSignOfZero) {
  /*
  #|PYTHON
  x = inputs(5)
  def unsigned_zero(f):
      return lambda t: f(t) + 0.0  # -0.0 + 0.0 is +0.0
  */
  const fp::Tensor x = input(truth<std::vector<double>>("values(x)"));
  // libtorch's kernel gives -0.0 or +0.0 for small negative inputs depending
  // on the loop that computes them (functional/activation.h); + 0.0 maps -0.0
  // to +0.0 and keeps every other bit.
  const auto with = [](double lambd) {
    return [=](const fp::Tensor& t) { return F::softshrink(t, {.lambd = lambd}) + 0.0; };
  };
  EXPECT_BITS(per_dtype(x, with(0.5)), truth<Bits>("per_dtype(x, unsigned_zero(F.softshrink))"));
  EXPECT_BITS(per_dtype(x, with(1.3)),
              truth<Bits>("per_dtype(x, unsigned_zero(lambda t: F.softshrink(t, 1.3)))"));
  EXPECT_BITS(per_dtype(x, with(0.0)),
              truth<Bits>("per_dtype(x, unsigned_zero(lambda t: F.softshrink(t, 0.)))"));
  EXPECT_BITS(per_dtype(strided(x), with(3.0)),
              truth<Bits>("per_dtype(strided(x), unsigned_zero(lambda t: F.softshrink(t, 3.)))"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::softshrink: lambd must be in range [0, "
                  "3.4028234663852886e+38] for input dtype float32, but found -0.5",
                  F::softshrink(x.to(fp::DType::F32), {.lambd = -0.5}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::softshrink: expected a floating-point input, got int32",
                  F::softshrink(fp::tensor({1, 2})));
}

TEST(ActivationComposites, HardshrinkIsBitExact) {
  /*
  #|PYTHON
  x = inputs(6)
  */
  const fp::Tensor x = input(truth<std::vector<double>>("values(x)"));
  const auto with = [](double lambd) {
    return [=](const fp::Tensor& t) { return F::hardshrink(t, {.lambd = lambd}); };
  };
  EXPECT_BITS(per_dtype(x, with(0.5)), truth<Bits>("per_dtype(x, F.hardshrink)"));
  EXPECT_BITS(per_dtype(x, with(1.3)), truth<Bits>("per_dtype(x, lambda t: F.hardshrink(t, 1.3))"));
  EXPECT_BITS(per_dtype(x, with(-1.0)),
              truth<Bits>("per_dtype(x, lambda t: F.hardshrink(t, -1.))"));
  EXPECT_BITS(per_dtype(strided(x), with(0.1)),
              truth<Bits>("per_dtype(strided(x), lambda t: F.hardshrink(t, 0.1))"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::hardshrink: expected a floating-point input, got int32",
                  F::hardshrink(fp::tensor({1, 2})));
}

TEST(ActivationComposites, RreluInEvalModeIsLeakyReluWithTheMeanSlope) {
  /*
  #|PYTHON
  x = inputs(7)
  */
  const fp::Tensor x = input(truth<std::vector<double>>("values(x)"));
  EXPECT_BITS(per_dtype(x, [](const fp::Tensor& t) { return F::rrelu(t); }),
              truth<Bits>("per_dtype(x, F.rrelu)"));
  EXPECT_BITS(
      per_dtype(strided(x),
                [](const fp::Tensor& t) { return F::rrelu(t, {.lower = 0.1, .upper = 0.7}); }),
      truth<Bits>("per_dtype(strided(x), lambda t: F.rrelu(t, 0.1, 0.7))"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::rrelu: Lower bound should be less than or equal to the upper "
                  "bound",
                  F::rrelu(x, {.lower = 0.5, .upper = 0.1}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::rrelu: expected a floating-point input, got int32",
                  F::rrelu(fp::tensor({1, 2})));
}

TEST(ActivationComposites, RreluInTrainingModeDrawsAsLibtorch) {
  /*
  #|PYTHON
  x = inputs(8)
  def drawn(t, lower, upper, seed):
      noise = torch.empty_like(t)
      return torch.ops.aten.rrelu_with_noise(t, noise, lower, upper, True, g(seed))
  TRAINED = [torch.float32, torch.float64, torch.bfloat16]
  */
  const fp::Tensor x = input(truth<std::vector<double>>("values(x)"));
  const std::vector<fp::DType> trained = {fp::DType::F32, fp::DType::F64, fp::DType::BF16};
  const auto seeded = [&](const fp::TensorView& input, double lower, double upper) {
    Bits out;
    for (const fp::DType dtype : trained) {
      fp::Generator generator(11);
      out.push_back(bits(
          F::rrelu(input.to(dtype),
                   {.lower = lower, .upper = upper, .training = true, .generator = &generator})));
    }
    return out;
  };
  EXPECT_BITS(seeded(x, 0.1, 0.9),
              truth<Bits>("per_dtype(x, lambda t: drawn(t, 0.1, 0.9, 11), TRAINED)"));
  EXPECT_BITS(seeded(strided(x), 1.0 / 8, 1.0 / 3),
              truth<Bits>("per_dtype(strided(x), lambda t: drawn(t, 1/8, 1/3, 11), TRAINED)"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::rrelu: training = true: not implemented for float16",
                  F::rrelu(x.to(fp::DType::F16), {.training = true}));
}

TEST(ActivationComposites, RreluInTrainingModeWithLibtorchsGeneratorScalesByASlopeInRange) {
  // libtorch's global generator cannot be seeded through the stable ABI, so
  // these draws cannot be compared with Python's: each x <= 0 must be x
  // times a slope in [lower, upper], everything else unchanged.
  const fp::Tensor x = nn_test::randn({300}, 9).to(fp::DType::F64);
  const std::vector<double> in = x.to_vector<double>();
  const std::vector<double> out =
      F::rrelu(x, {.lower = 0.2, .upper = 0.4, .training = true}).to_vector<double>();
  ASSERT_EQ(in.size(), out.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] > 0) {
      EXPECT_EQ(out[i], in[i]);
    } else {
      // r = x * slope rounded once: the slope read back is within 1e-15 of it.
      EXPECT_GE(out[i] / in[i], 0.2 - 1e-15);
      EXPECT_LE(out[i] / in[i], 0.4 + 1e-15);
    }
  }
}

TEST(ActivationComposites, InPlaceFormsWriteTheSameBits) {
  /*
  #|PYTHON
  x = inputs(9).float()
  def in_place(f):
      t = x.clone()
      f(t)
      return bits(t)
  */
  const fp::Tensor x = input(truth<std::vector<double>>("values(x)")).to(fp::DType::F32);
  const auto in_place = [&](auto f) {
    fp::Tensor t = x.clone();
    f(t);
    return bits(t);
  };
  using V = std::vector<std::int64_t>;
  EXPECT_EQ(in_place([](fp::Tensor& t) { F::relu_(t); }), truth<V>("in_place(F.relu_)"));
  EXPECT_EQ(in_place([](fp::Tensor& t) { F::selu_(t); }), truth<V>("in_place(F.selu_)"));
  EXPECT_EQ(in_place([](fp::Tensor& t) { F::leaky_relu_(t, {.negative_slope = 0.2}); }),
            truth<V>("in_place(lambda t: F.leaky_relu_(t, 0.2))"));
  EXPECT_EQ(in_place([](fp::Tensor& t) { F::hardtanh_(t, {.min_val = -2.0, .max_val = 3.0}); }),
            truth<V>("in_place(lambda t: F.hardtanh_(t, -2., 3.))"));
  EXPECT_EQ(in_place([](fp::Tensor& t) { F::threshold_(t, 0.5, -1.0); }),
            truth<V>("in_place(lambda t: F.threshold_(t, 0.5, -1.))"));
  EXPECT_EQ(in_place([](fp::Tensor& t) { F::rrelu_(t); }), truth<V>("in_place(F.rrelu_)"));
  // elu_ and celu_ write what elu and celu return (within 2 ulp of Python's).
  EXPECT_EQ(in_place([](fp::Tensor& t) { F::elu_(t, {.alpha = 0.5}); }),
            bits(F::elu(x, {.alpha = 0.5})));
  EXPECT_EQ(in_place([](fp::Tensor& t) { F::celu_(t, {.alpha = 0.5}); }),
            bits(F::celu(x, {.alpha = 0.5})));
  // Through a mutable view, the writes reach the parent only there.
  fp::Tensor parent = x.clone();
  F::hardtanh_(parent.i_mut(fp::slice(0, 10)));
  EXPECT_EQ(bits(parent), truth<V>("bits(torch.cat([F.hardtanh(x[:10]), x[10:]]))"));
}

}  // namespace activation_composites_test
