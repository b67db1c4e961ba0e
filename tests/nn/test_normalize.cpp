// fp::functional::normalize for every p, dim and eps, rms_norm and
// local_response_norm against torch.nn.functional, bit for bit in every
// floating dtype (normalize: within the ulp its doc comment states where it
// says so).
#include <gtest/gtest.h>

#include <flash_powder/aten/aten.h>
#include <flash_powder/flash_powder.h>

#include <cstdint>
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
from activation_bits import bits, per_dtype
from truth_helpers import g, values, message
inf = float("inf")
def with_zeros(t):
    t = t.clone()
    t.view(-1)[::7] = 0
    return t
*/

// A named namespace: the unity build compiles this file with others.
namespace normalize_test {

using fp_test::truth;

namespace F = fp::functional;
using nn_test::Bits;
using nn_test::max_ulp;
using nn_test::per_dtype;
using nn_test::randn;
using nn_test::values;

constexpr double kInf = std::numeric_limits<double>::infinity();

/// x with every 7th element (row-major) zero, as Python's `with_zeros`.
fp::Tensor with_zeros(const fp::Tensor& x) {
  fp::Tensor flat = x.reshape({-1});
  flat.i_mut(fp::slice(fp::end, fp::end, 7)).fill_(0.0);
  return flat.reshape(x.sizes());
}

/// normalize with p over dim, in each dtype.
Bits normalized(const fp::TensorView& x, double p, const fp::nn::Dims& dim, double eps = 1e-12) {
  return per_dtype(
      x, [&](const fp::Tensor& t) { return F::normalize(t, {.p = p, .dim = dim, .eps = eps}); });
}

TEST(Normalize, ExactForP2And1And0AndInfinities) {
  /*
  #|PYTHON
  x = with_zeros(torch.randn(4, 6, 5, generator=g(1)))
  def normalized(t, p, dim, eps=1e-12):
      return per_dtype(t, lambda u: F.normalize(u, p, dim, eps))
  */
  const fp::Tensor x = with_zeros(randn({4, 6, 5}, 1));
  const fp::TensorView across = fp::aten::transpose_int(x, 0, 2);
  EXPECT_BITS(normalized(x, 2.0, 1), truth<Bits>("normalized(x, 2., 1)"));
  EXPECT_BITS(normalized(x, 2.0, {0, 2}, 0.5), truth<Bits>("normalized(x, 2., (0, 2), 0.5)"));
  EXPECT_BITS(normalized(x, 1.0, -1), truth<Bits>("normalized(x, 1., -1)"));
  EXPECT_BITS(normalized(x, 1.0, {1, 2}), truth<Bits>("normalized(x, 1., (1, 2))"));
  EXPECT_BITS(normalized(across, 1.0, {0, 1}),
              truth<Bits>("normalized(x.transpose(0, 2), 1., (0, 1))"));
  EXPECT_BITS(normalized(x, 0.0, 1), truth<Bits>("normalized(x, 0., 1)"));
  EXPECT_BITS(normalized(x, kInf, 0), truth<Bits>("normalized(x, inf, 0)"));
  EXPECT_BITS(normalized(across, -kInf, -1),
              truth<Bits>("normalized(x.transpose(0, 2), -inf, -1)"));
}

TEST(Normalize, OtherPExactInFloat64AndHalfTypesWithinUlpInFloat32) {
  /*
  #|PYTHON
  x = with_zeros(torch.randn(4, 6, 5, generator=g(2)))
  def normalized(t, p, dim, eps=1e-12):
      return per_dtype(t, lambda u: F.normalize(u, p, dim, eps))
  */
  const fp::Tensor x = with_zeros(randn({4, 6, 5}, 2));
  const fp::TensorView across = fp::aten::transpose_int(x, 0, 2);
  // float32: cdist raises the sum to 1/p in double, libtorch's norm in float
  // (fp::functional::normalize says so): a few ulp. The others are exact.
  const auto check = [](const Bits& actual, const Bits& expected, std::int64_t float32_ulp) {
    ASSERT_EQ(actual.size(), 4U);
    ASSERT_EQ(expected.size(), 4U);
    EXPECT_LE(max_ulp({actual[0]}, {expected[0]}), float32_ulp);
    EXPECT_BITS((Bits{actual[1], actual[2], actual[3]}),
                (Bits{expected[1], expected[2], expected[3]}));
  };
  check(normalized(x, 3.0, 1), truth<Bits>("normalized(x, 3., 1)"), 3);
  check(normalized(x, 0.5, -1), truth<Bits>("normalized(x, 0.5, -1)"), 3);
  check(normalized(x, 1.5, {0, 2}), truth<Bits>("normalized(x, 1.5, (0, 2))"), 3);
  check(normalized(across, 4.0, {0, 1}), truth<Bits>("normalized(x.transpose(0, 2), 4., (0, 1))"),
        3);
  check(normalized(x, 0.25, 0, 0.5), truth<Bits>("normalized(x, 0.25, 0, 0.5)"), 3);
}

TEST(Normalize, NegativePWithinAFewUlp) {
  /*
  #|PYTHON
  x = torch.randn(4, 6, 5, generator=g(3))
  def normalized(t, p, dim):
      return per_dtype(t, lambda u: F.normalize(u, p, dim))
  */
  const fp::Tensor x = randn({4, 6, 5}, 3);
  // |x|^p by pow's kernel, summed by cdist: up to 4 (float32) and 6 (float64)
  // ulp measured; 8 allowed. float16/bfloat16 round the float32 value.
  const auto check = [](const Bits& actual, const Bits& expected) {
    EXPECT_LE(max_ulp(actual, expected), 8);
  };
  check(normalized(x, -1.0, 1), truth<Bits>("normalized(x, -1., 1)"));
  check(normalized(x, -0.5, {0, 2}), truth<Bits>("normalized(x, -0.5, (0, 2))"));
}

TEST(Normalize, ComplexByMagnitude) {
  /*
  #|PYTHON
  z = torch.complex(torch.randn(3, 8, generator=g(11)), torch.randn(3, 8, generator=g(12)))
  def normalized(p, dim):
      return bits(torch.view_as_real(F.normalize(z, p, dim)))
  */
  const fp::Tensor z = fp::aten::complex(randn({3, 8}, 11), randn({3, 8}, 12));
  const auto normalized = [&](double p, std::int64_t dim) {
    return nn_test::bits(fp::aten::view_as_real(F::normalize(z, {.p = p, .dim = dim})).to_owned());
  };
  using V = std::vector<std::int64_t>;
  EXPECT_EQ(normalized(2.0, 1), truth<V>("normalized(2., 1)"));
  EXPECT_EQ(normalized(1.0, 0), truth<V>("normalized(1., 0)"));
  EXPECT_EQ(normalized(0.0, 1), truth<V>("normalized(0., 1)"));
  EXPECT_EQ(normalized(kInf, 1), truth<V>("normalized(inf, 1)"));
}

TEST(Normalize, BadInput) {
  const fp::Tensor x = randn({2, 3}, 4);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::normalize: Dimension out of range (expected to be in range of "
                  "[-2, 1], but got 2)",
                  F::normalize(x, {.dim = 2}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::normalize: dim 1 appears multiple times in the list of dims",
                  F::normalize(x, {.dim = {1, -1}}));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "fp::functional::normalize: expected a floating-point or complex input, got int32",
      F::normalize(fp::tensor({1, 2})));
}

TEST(RmsNorm, IsAtenRmsNorm) {
  /*
  #|PYTHON
  x = torch.randn(3, 4, 5, generator=g(5)) * 2
  w = torch.randn(4, 5, generator=g(6))
  */
  const fp::Tensor x = randn({3, 4, 5}, 5) * fp::tensor(2.f), w = randn({4, 5}, 6);
  EXPECT_BITS(per_dtype(x, [](const fp::Tensor& t) { return F::rms_norm(t, {5}); }),
              truth<Bits>("per_dtype(x, lambda t: F.rms_norm(t, [5]))"));
  EXPECT_BITS(per_dtype(x,
                        [&](const fp::Tensor& t) {
                          return F::rms_norm(t, {4, 5}, {.weight = w.to(t.dtype()), .eps = 0.5});
                        }),
              truth<Bits>("per_dtype(x, lambda t: F.rms_norm(t, [4, 5], w.to(t.dtype), 0.5))"));
  const fp::TensorView across = fp::aten::transpose_int(x, 0, 2);  // [5, 4, 3]
  EXPECT_BITS(per_dtype(across, [](const fp::Tensor& t) { return F::rms_norm(t, {3}); }),
              truth<Bits>("per_dtype(x.transpose(0, 2), lambda t: F.rms_norm(t, [3]))"));
  EXPECT_TORCH_ERROR_EXACT("aten::rms_norm",
                           truth<std::string>("message(lambda: F.rms_norm(x, [4]))"),
                           F::rms_norm(x, {4}));
}

TEST(LocalResponseNorm, IsPythonsComposition) {
  /*
  #|PYTHON
  x3 = torch.randn(2, 7, 5, generator=g(7)) * 3
  x4 = torch.randn(2, 6, 3, 4, generator=g(8)) * 3
  x5 = torch.randn(1, 5, 2, 3, 2, generator=g(9))
  WIDE = [torch.float32, torch.float64]
  */
  const fp::Tensor x3 = randn({2, 7, 5}, 7) * fp::tensor(3.f);
  const fp::Tensor x4 = randn({2, 6, 3, 4}, 8) * fp::tensor(3.f), x5 = randn({1, 5, 2, 3, 2}, 9);
  EXPECT_BITS(per_dtype(x3, [](const fp::Tensor& t) { return F::local_response_norm(t, 3); }),
              truth<Bits>("per_dtype(x3, lambda t: F.local_response_norm(t, 3))"));
  // 4 or more dimensions pool with avg_pool3d, which libtorch's CPU build
  // has for float32 and float64 only.
  const std::vector<fp::DType> wide = {fp::DType::F32, fp::DType::F64};
  EXPECT_BITS(per_dtype(
                  x4,
                  [](const fp::Tensor& t) {
                    return F::local_response_norm(t, 4, {.alpha = 0.01, .beta = 0.5, .k = 2.0});
                  },
                  wide),
              truth<Bits>("per_dtype(x4, lambda t: F.local_response_norm(t, 4, 0.01, 0.5, 2.), "
                          "WIDE)"));
  EXPECT_BITS(per_dtype(
                  x5, [](const fp::Tensor& t) { return F::local_response_norm(t, 2); }, wide),
              truth<Bits>("per_dtype(x5, lambda t: F.local_response_norm(t, 2), WIDE)"));
  const fp::TensorView across = fp::aten::transpose_int(x4, 2, 3);
  EXPECT_BITS(per_dtype(
                  across, [](const fp::Tensor& t) { return F::local_response_norm(t, 5); }, wide),
              truth<Bits>("per_dtype(x4.transpose(2, 3).contiguous(), lambda t: "
                          "F.local_response_norm(t, 5), WIDE)"));
  const fp::Tensor flat = randn({2, 3}, 10);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::local_response_norm: Expected 3D or higher dimensionality "
                  "input (got 2 dimensions)",
                  F::local_response_norm(flat, 2));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::local_response_norm: size must be positive, got 0",
                  F::local_response_norm(x3, 0));
}

}  // namespace normalize_test
