// Arithmetic and comparisons: every dtype pair and every kind of number
// promotes and computes exactly as in Python.
//
// Why this file is long: every dtype pair of every operator.
#include <gtest/gtest.h>

#include <flash_powder/aten/aten.h>
#include <flash_powder/flash_powder.h>
#include <sys/resource.h>

#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <utility>

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#include "support/expect_error.h"
#include "support/truth.h"

namespace {

using fp_test::truth;

using fp::DType;
using fp::Tensor;

const std::vector<DType> kDTypes = {DType::Bool, DType::U8,  DType::I8,   DType::I16, DType::I32,
                                    DType::I64,  DType::F16, DType::BF16, DType::F32, DType::F64};

Tensor left_operand(DType dtype) {
  return fp::tensor({0.0, 1.0, 2.0, 5.0}, dtype);
}
Tensor right_operand(DType dtype) {
  return fp::tensor({1.0, 3.0, 2.0, 7.0}, dtype);
}

/// Values as doubles; NaN compares equal to NaN here.
void expect_same(const std::vector<double>& actual, const std::vector<double>& expected,
                 const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(actual[i])) << what << " [" << i << "]";
    } else {
      EXPECT_EQ(actual[i], expected[i]) << what << " [" << i << "]";
    }
  }
}

/*
#|PYTHON_GLOBAL
DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.float16, torch.bfloat16, torch.float32, torch.float64]
def left(d): return torch.tensor([0.0, 1.0, 2.0, 5.0], dtype=d)
def right(d): return torch.tensor([1.0, 3.0, 2.0, 7.0], dtype=d)
def table(op):
    results = []
    for a in DTYPES:
        for b in DTYPES:
            if op is torch.sub and torch.bool in (a, b):
                continue  # PyTorch refuses bool operands; tested separately
            results.append(op(left(a), right(b)))
    return results
*/

/// expect_same with the expected values last (where the ground-truth tool writes them).
void expect_values(const std::vector<double>& actual, const std::vector<double>& expected) {
  expect_same(actual, expected, "");
}

template <class Op>
void check_table(Op op, bool skip_bool_operands, const std::vector<DType>& expected_dtypes,
                 const std::vector<std::vector<double>>& expected_values, const char* name) {
  std::size_t k = 0;
  for (DType a : kDTypes) {
    for (DType b : kDTypes) {
      if (skip_bool_operands && (a == DType::Bool || b == DType::Bool)) continue;
      const Tensor result = op(left_operand(a), right_operand(b));
      const std::string what =
          std::string(name) + " " + std::string(fp::name(a)) + " " + std::string(fp::name(b));
      ASSERT_LT(k, expected_dtypes.size());
      EXPECT_EQ(result.dtype(), expected_dtypes[k]) << what;
      expect_same(result.to_vector<double>(), expected_values[k], what);
      ++k;
    }
  }
  EXPECT_EQ(k, expected_dtypes.size());
}

TEST(ArithmeticTable, AddEveryDTypePair) {
  /*
  #|PYTHON
  results = table(torch.add)
  */
  const std::vector<DType> dtypes = truth<std::vector<DType>>("[r.dtype for r in results]");
  const std::vector<std::vector<double>> values =
      truth<std::vector<std::vector<double>>>("[r.double().tolist() for r in results]");
  check_table([](const Tensor& a, const Tensor& b) { return a + b; }, false, dtypes, values, "+");
}

TEST(ArithmeticTable, SubEveryDTypePair) {
  /*
  #|PYTHON
  results = table(torch.sub)
  */
  const std::vector<DType> dtypes = truth<std::vector<DType>>("[r.dtype for r in results]");
  const std::vector<std::vector<double>> values =
      truth<std::vector<std::vector<double>>>("[r.double().tolist() for r in results]");
  check_table([](const Tensor& a, const Tensor& b) { return a - b; }, true, dtypes, values, "-");
}

TEST(ArithmeticTable, MulEveryDTypePair) {
  /*
  #|PYTHON
  results = table(torch.mul)
  */
  const std::vector<DType> dtypes = truth<std::vector<DType>>("[r.dtype for r in results]");
  const std::vector<std::vector<double>> values =
      truth<std::vector<std::vector<double>>>("[r.double().tolist() for r in results]");
  check_table([](const Tensor& a, const Tensor& b) { return a * b; }, false, dtypes, values, "*");
}

TEST(ArithmeticTable, DivEveryDTypePair) {
  /*
  #|PYTHON
  results = table(torch.div)
  */
  const std::vector<DType> dtypes = truth<std::vector<DType>>("[r.dtype for r in results]");
  const std::vector<std::vector<double>> values =
      truth<std::vector<std::vector<double>>>("[r.double().tolist() for r in results]");
  check_table([](const Tensor& a, const Tensor& b) { return a / b; }, false, dtypes, values, "/");
}

TEST(ArithmeticTable, ComparisonsEveryDTypePair) {
  /*
  #|PYTHON
  lt = table(torch.lt)
  eq = table(torch.eq)
  ge = table(torch.ge)
  */
  const std::vector<DType> lt_dtypes = truth<std::vector<DType>>("[r.dtype for r in lt]");
  const std::vector<std::vector<double>> lt_values =
      truth<std::vector<std::vector<double>>>("[r.double().tolist() for r in lt]");
  check_table([](const Tensor& a, const Tensor& b) { return a < b; }, false, lt_dtypes, lt_values,
              "<");
  const std::vector<std::vector<double>> eq_values =
      truth<std::vector<std::vector<double>>>("[r.double().tolist() for r in eq]");
  check_table([](const Tensor& a, const Tensor& b) { return a == b; }, false, lt_dtypes, eq_values,
              "==");
  const std::vector<std::vector<double>> ge_values =
      truth<std::vector<std::vector<double>>>("[r.double().tolist() for r in ge]");
  check_table([](const Tensor& a, const Tensor& b) { return a >= b; }, false, lt_dtypes, ge_values,
              ">=");
}

// --- tensor with a number ----------------------------------------------------------

/*
#|PYTHON_GLOBAL
def with_numbers(op):
    results = []
    for d in DTYPES:
        for number in [2, 2.5, True, -1]:
            results.append(op(left(d), number))
    return results
*/

template <class Op>
void check_numbers(Op op, const std::vector<DType>& expected_dtypes,
                   const std::vector<std::vector<double>>& expected_values, const char* name) {
  std::size_t k = 0;
  for (DType d : kDTypes) {
    const std::vector<fp::Scalar> numbers = {2, 2.5, true, -1};
    for (const fp::Scalar& number : numbers) {
      const Tensor result = op(left_operand(d), number);
      const std::string what =
          std::string(name) + " " + std::string(fp::name(d)) + " #" + std::to_string(k % 4);
      ASSERT_LT(k, expected_dtypes.size());
      EXPECT_EQ(result.dtype(), expected_dtypes[k]) << what;
      expect_same(result.to_vector<double>(), expected_values[k], what);
      ++k;
    }
  }
  EXPECT_EQ(k, expected_dtypes.size());
}

TEST(ArithmeticNumbers, AddPromotesLikePythonNumbers) {
  /*
  #|PYTHON
  results = with_numbers(lambda t, n: t + n)
  */
  const std::vector<DType> dtypes = truth<std::vector<DType>>("[r.dtype for r in results]");
  const std::vector<std::vector<double>> values =
      truth<std::vector<std::vector<double>>>("[r.double().tolist() for r in results]");
  check_numbers([](const Tensor& t, fp::Scalar n) { return t + n; }, dtypes, values, "+");
}

TEST(ArithmeticNumbers, MulPromotesLikePythonNumbers) {
  /*
  #|PYTHON
  results = with_numbers(lambda t, n: t * n)
  */
  const std::vector<DType> dtypes = truth<std::vector<DType>>("[r.dtype for r in results]");
  const std::vector<std::vector<double>> values =
      truth<std::vector<std::vector<double>>>("[r.double().tolist() for r in results]");
  check_numbers([](const Tensor& t, fp::Scalar n) { return t * n; }, dtypes, values, "*");
}

TEST(ArithmeticNumbers, DivAndReversedOperandsPromoteLikePythonNumbers) {
  /*
  #|PYTHON
  div = with_numbers(lambda t, n: t / n)
  */
  const std::vector<DType> div_dtypes = truth<std::vector<DType>>("[r.dtype for r in div]");
  const std::vector<std::vector<double>> div_values =
      truth<std::vector<std::vector<double>>>("[r.double().tolist() for r in div]");
  check_numbers([](const Tensor& t, fp::Scalar n) { return t / n; }, div_dtypes, div_values, "/");
}

TEST(ArithmeticNumbers, ComparisonsWithNumbers) {
  /*
  #|PYTHON
  results = with_numbers(lambda t, n: t > n)
  */
  const std::vector<DType> dtypes = truth<std::vector<DType>>("[r.dtype for r in results]");
  const std::vector<std::vector<double>> values =
      truth<std::vector<std::vector<double>>>("[r.double().tolist() for r in results]");
  check_numbers([](const Tensor& t, fp::Scalar n) { return t > n; }, dtypes, values, ">");
}

TEST(ArithmeticNumbers, IntegersWrapAndStayExact) {
  /*
  #|PYTHON
  wrapped = torch.tensor([127, -128], dtype=torch.int8) + 1
  big = torch.tensor([2**62 + 1], dtype=torch.int64) + torch.tensor([2**62 - 3])
  byte = torch.tensor([10, 250], dtype=torch.uint8) + 300
  under = torch.tensor([0, 5], dtype=torch.uint8) - 1
  boolean = torch.tensor([True, False]) + 1
  half = torch.tensor([0.1, 3.0], dtype=torch.float16) * 3
  int_and_float = torch.tensor([1, 2], dtype=torch.int32) + 2.5
  */
  const Tensor wrapped = fp::tensor({int8_t{127}, int8_t{-128}}) + 1;
  EXPECT_EQ(wrapped.dtype(), fp::DType::I8);  // #PYTHON wrapped.dtype
  EXPECT_EQ(wrapped.to_vector<int64_t>(),
            (std::vector<int64_t>{-128, -127}));  // #PYTHON wrapped.tolist()
  const Tensor big = fp::tensor({(int64_t{1} << 62) + 1}) + fp::tensor({(int64_t{1} << 62) - 3});
  EXPECT_EQ(big.to_vector<int64_t>(),
            (std::vector<int64_t>{9223372036854775806}));  // #PYTHON big.tolist()
  const Tensor byte = fp::tensor({uint8_t{10}, uint8_t{250}}) + 300;
  EXPECT_EQ(byte.dtype(), fp::DType::U8);                                // #PYTHON byte.dtype
  EXPECT_EQ(byte.to_vector<int64_t>(), (std::vector<int64_t>{54, 38}));  // #PYTHON byte.tolist()
  const Tensor under = fp::tensor({uint8_t{0}, uint8_t{5}}) - 1;
  EXPECT_EQ(under.to_vector<int64_t>(), (std::vector<int64_t>{255, 4}));  // #PYTHON under.tolist()
  const Tensor boolean = fp::tensor(std::vector<bool>{true, false}) + 1;
  EXPECT_EQ(boolean.dtype(), fp::DType::I64);  // #PYTHON boolean.dtype
  EXPECT_EQ(boolean.to_vector<int64_t>(),
            (std::vector<int64_t>{2, 1}));  // #PYTHON boolean.tolist()
  const Tensor half = fp::tensor({0.1, 3.0}, DType::F16) * 3;
  EXPECT_EQ(half.dtype(), fp::DType::F16);  // #PYTHON half.dtype
  EXPECT_EQ(half.to_vector<double>(), truth<std::vector<double>>("half.tolist()"));
  const Tensor int_and_float = fp::tensor({int32_t{1}, int32_t{2}}) + 2.5;
  EXPECT_EQ(int_and_float.dtype(), fp::DType::F32);  // #PYTHON int_and_float.dtype
  EXPECT_EQ(int_and_float.to_vector<double>(),
            truth<std::vector<double>>("int_and_float.tolist()"));
}

TEST(ArithmeticNumbers, SeedMultiplication) {
  /*
  #|PYTHON
  r = torch.tensor([0.2015, -0.4255, 2.6087]) * 100.0
  */
  const Tensor t = fp::tensor({0.2015f, -0.4255f, 2.6087f});
  const Tensor r = t * 100.0;
  EXPECT_EQ(r.to_vector<double>(), truth<std::vector<double>>("r.tolist()"));
  EXPECT_EQ((t * fp::tensor(100.f)).to_vector<double>(), r.to_vector<double>());
}

TEST(Arithmetic, DivisionRoundingRemainderAndFmod) {
  /*
  #|PYTHON
  a = torch.tensor([7., -7., 7.5, -7.5])
  b = torch.tensor([2., 2., -2., -2.])
  floor = torch.div(a, b, rounding_mode="floor")
  trunc = torch.div(a, b, rounding_mode="trunc")
  rem = a % b
  fmod = torch.fmod(a, b)
  ia = torch.tensor([7, -7])
  idiv = ia / 2
  ifloor = torch.div(ia, 2, rounding_mode="floor")
  */
  const Tensor a = fp::tensor({7.f, -7.f, 7.5f, -7.5f});
  const Tensor b = fp::tensor({2.f, 2.f, -2.f, -2.f});
  EXPECT_EQ(a.div(b, "floor").to_vector<double>(), truth<std::vector<double>>("floor.tolist()"));
  EXPECT_EQ(a.div(b, "trunc").to_vector<double>(), truth<std::vector<double>>("trunc.tolist()"));
  EXPECT_EQ((a % b).to_vector<double>(), truth<std::vector<double>>("rem.tolist()"));
  EXPECT_EQ(a.fmod(b).to_vector<double>(), truth<std::vector<double>>("fmod.tolist()"));
  const Tensor ia = fp::tensor({int64_t{7}, int64_t{-7}});
  EXPECT_EQ((ia / 2).dtype(), fp::DType::F32);  // #PYTHON idiv.dtype
  EXPECT_EQ((ia / 2).to_vector<double>(), truth<std::vector<double>>("idiv.tolist()"));
  EXPECT_EQ(ia.div(2, "floor").to_vector<int64_t>(),
            (std::vector<int64_t>{3, -4}));               // #PYTHON ifloor.tolist()
  EXPECT_EQ(ia.div(2, "floor").dtype(), fp::DType::I64);  // #PYTHON ifloor.dtype
}

TEST(Arithmetic, PowerBitForBit) {
  // libtorch special-cases some exponents; every result must match bit for bit.
  /*
  #|PYTHON
  x = torch.linspace(0.1, 7.3, 37)
  powers = [(x ** e).tolist() for e in [2, 3, 0.5, -0.5, -1, -2, 1.7, 0, 1]]
  ints = (torch.arange(-3, 4) ** 3).tolist()
  tensor_power = (x ** torch.full((37,), 2.5)).tolist()
  */
  const Tensor x = fp::linspace(0.1, 7.3, 37);
  const std::vector<std::vector<double>> expected =
      truth<std::vector<std::vector<double>>>("powers");
  const std::vector<double> exponents = {2, 3, 0.5, -0.5, -1, -2, 1.7, 0, 1};
  for (std::size_t i = 0; i < exponents.size(); ++i) {
    const fp::Scalar exponent = exponents[i] == std::floor(exponents[i]) && exponents[i] >= 0
                                    ? fp::Scalar(static_cast<int64_t>(exponents[i]))
                                    : fp::Scalar(exponents[i]);
    expect_same(x.pow(exponent).to_vector<double>(), expected[i],
                "pow " + std::to_string(exponents[i]));
  }
  EXPECT_EQ(fp::arange(-3, 4).pow(3).to_vector<int64_t>(),
            (std::vector<int64_t>{-27, -8, -1, 0, 1, 8, 27}));  // #PYTHON ints
  expect_values(x.pow(fp::full({37}, 2.5)).to_vector<double>(),
                truth<std::vector<double>>("tensor_power"));
}

TEST(Arithmetic, UnaryFunctions) {
  /*
  #|PYTHON
  x = torch.tensor([-2.5, -0.5, 0.0, 0.5, 1.5, 2.5, 3.7])
  p = x.abs() + 0.1
  */
  const Tensor x = fp::tensor({-2.5f, -0.5f, 0.0f, 0.5f, 1.5f, 2.5f, 3.7f});
  const Tensor p = x.abs() + 0.1;
  expect_values((-x).to_vector<double>(), truth<std::vector<double>>("(-x).tolist()"));
  expect_values(x.abs().to_vector<double>(), truth<std::vector<double>>("x.abs().tolist()"));
  expect_values(p.sqrt().to_vector<double>(), truth<std::vector<double>>("p.sqrt().tolist()"));
  expect_values(p.rsqrt().to_vector<double>(), truth<std::vector<double>>("p.rsqrt().tolist()"));
  expect_values(x.exp().to_vector<double>(), truth<std::vector<double>>("x.exp().tolist()"));
  expect_values(p.log().to_vector<double>(), truth<std::vector<double>>("p.log().tolist()"));
  expect_values(x.sin().to_vector<double>(), truth<std::vector<double>>("x.sin().tolist()"));
  expect_values(x.cos().to_vector<double>(), truth<std::vector<double>>("x.cos().tolist()"));
  expect_values(x.tanh().to_vector<double>(), truth<std::vector<double>>("x.tanh().tolist()"));
  expect_values(x.sigmoid().to_vector<double>(),
                truth<std::vector<double>>("x.sigmoid().tolist()"));
  expect_values(x.floor().to_vector<double>(), truth<std::vector<double>>("x.floor().tolist()"));
  expect_values(x.ceil().to_vector<double>(), truth<std::vector<double>>("x.ceil().tolist()"));
  expect_values(x.round().to_vector<double>(), truth<std::vector<double>>("x.round().tolist()"));
  expect_values((x * 1.2345).round(2).to_vector<double>(),
                truth<std::vector<double>>("(x * 1.2345).round(decimals=2).tolist()"));
}

// --- in place --------------------------------------------------------------------------

TEST(InPlace, ArithmeticWritesTheTensorItself) {
  /*
  #|PYTHON
  t = torch.tensor([1., 2., 3.])
  t += 1
  t *= torch.tensor([2., 2., 0.5])
  t -= 0.25
  t /= 2
  t %= 1.5
  i = torch.tensor([5, 6], dtype=torch.int8)
  i += 125
  */
  Tensor t = fp::tensor({1.f, 2.f, 3.f});
  t += 1;
  t *= fp::tensor({2.f, 2.f, 0.5f});
  t -= 0.25;
  t /= 2;
  t %= 1.5;
  EXPECT_EQ(t.to_vector<double>(), truth<std::vector<double>>("t.tolist()"));
  Tensor i = fp::tensor({int8_t{5}, int8_t{6}});
  i += 125;
  EXPECT_EQ(i.to_vector<int64_t>(), (std::vector<int64_t>{-126, -125}));  // #PYTHON i.tolist()
  EXPECT_EQ(i.dtype(), DType::I8);
}

TEST(InPlace, SelfAliasingArgumentsAreFine) {
  /*
  #|PYTHON
  t = torch.tensor([1., 2., 3.])
  t.add_(t)
  t.mul_(t)
  */
  Tensor t = fp::tensor({1.f, 2.f, 3.f});
  t.add_(t);
  t.mul_(t);
  EXPECT_EQ(t.to_vector<double>(), truth<std::vector<double>>("t.tolist()"));
}

/*
#|PYTHON_GLOBAL
FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
SPECIALS = [0.0, -0.0, 1.0, -1.5, float("inf"), float("-inf"), float("nan"), 1e-40, -3e38,
            65504.0, 1e-7, 2.0 ** -24]
def in_place_operands(d):
    torch.manual_seed(7)
    left = torch.cat([torch.tensor(SPECIALS * len(SPECIALS)), torch.randn(132) * 1e3])
    right = torch.cat([torch.tensor(SPECIALS).repeat_interleave(len(SPECIALS)),
                       torch.randn(132) * 1e-2])
    return left.to(d).reshape(12, 23), right.to(d).reshape(12, 23)
def in_place(method, view=lambda t: t, other=lambda u: u):
    results = []
    for d in FLOATS:
        t, u = in_place_operands(d)
        getattr(view(t), method)(other(u))
        # the sign bit too, which tolist() loses for NaN
        results.append(t.double().flatten().tolist() + t.signbit().double().flatten().tolist())
    return results
*/

const std::vector<DType> kFloats = {DType::F16, DType::BF16, DType::F32, DType::F64};

/// The operands of in_place_operands() above for kFloats[i], from their
/// values read back exactly (every value of these dtypes is a double), their
/// rows repeated `copies` times.
std::pair<Tensor, Tensor> in_place_operands(
    const std::vector<std::vector<std::vector<double>>>& operands, std::size_t i,
    std::int64_t copies) {
  auto make = [&](const std::vector<double>& values) {
    return fp::aten::repeat(fp::tensor(values, kFloats.at(i)).reshape({12, 23}), {copies, 1});
  };
  return {make(operands.at(i).at(0)), make(operands.at(i).at(1))};
}

/// in_place()'s values and sign bits for operands repeated `copies` times.
std::vector<double> repeated(const std::vector<double>& expected, std::int64_t copies) {
  const auto half = static_cast<std::ptrdiff_t>(expected.size() / 2);
  std::vector<double> values, signs;
  for (std::int64_t copy = 0; copy < copies; ++copy) {
    values.insert(values.end(), expected.begin(), expected.begin() + half);
    signs.insert(signs.end(), expected.begin() + half, expected.end());
  }
  values.insert(values.end(), signs.begin(), signs.end());
  return values;
}

/// Values bit for bit (but NaN's payload): `expected` holds the values, then
/// each one's sign bit as 0 or 1 (in_place() above).
void expect_bits(const Tensor& actual, const std::vector<double>& expected,
                 const std::string& what) {
  const std::vector<double> values = actual.to_vector<double>();
  ASSERT_EQ(values.size() * 2, expected.size()) << what;
  const auto half = static_cast<std::ptrdiff_t>(values.size());
  expect_same(values, std::vector<double>(expected.begin(), expected.begin() + half), what);
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(std::signbit(values[i]), expected[values.size() + i] == 1.0)
        << what << " sign [" << i << "]";
  }
}

TEST(InPlace, FloatAddAndSubEqualPythonBitForBit) {
  using Results = std::vector<std::vector<double>>;
  const auto operands = truth<std::vector<Results>>(
      "[[t.double().flatten().tolist() for t in in_place_operands(d)] for d in FLOATS]");
  const auto added = truth<Results>("in_place('add_')");
  const auto subtracted = truth<Results>("in_place('sub_')");
  const auto into_rows = truth<Results>("in_place('add_', lambda t: t[::2], lambda u: u[3])");
  // Small tensors take add + copy_, large ones (64 KiB and up) the in-place
  // kernel: 128 copies of the rows make even float16 operands 69 KiB.
  for (const std::int64_t copies : {1, 128}) {
    for (std::size_t i = 0; i < kFloats.size(); ++i) {
      const std::string name = std::string(fp::name(kFloats[i])) + " x" + std::to_string(copies);
      auto [t, u] = in_place_operands(operands, i, copies);
      t += u;
      expect_bits(t, repeated(added.at(i), copies), name + " +=");
      std::tie(t, u) = in_place_operands(operands, i, copies);
      t -= u;
      expect_bits(t, repeated(subtracted.at(i), copies), name + " -=");
      // A broadcast row, into every other row through a mutable view.
      std::tie(t, u) = in_place_operands(operands, i, copies);
      t.i_mut(fp::slice(0, fp::end, 2)).add_(u.i(3));
      expect_bits(t, repeated(into_rows.at(i), copies), name + " strided view += row");
      // Into a transposed (non-contiguous) tensor.
      std::tie(t, u) = in_place_operands(operands, i, copies);
      Tensor transposed = fp::aten::clone(t.transpose(0, 1), fp::MemoryFormat::Preserve);
      transposed -= fp::aten::clone(u.transpose(0, 1), fp::MemoryFormat::Preserve);
      EXPECT_FALSE(transposed.is_contiguous());
      expect_bits(transposed.transpose(0, 1).contiguous(), repeated(subtracted.at(i), copies),
                  name + " transposed -=");
    }
  }
}

TEST(InPlace, AddKeepsValueSemanticsAndMixedDTypes) {
  /*
  #|PYTHON
  a = torch.tensor([1.5, -2.0, 3.0])
  b = a.clone()
  b += a
  h = torch.tensor([1.0, 2.0], dtype=torch.float16)
  h += torch.tensor([0.1, 0.2], dtype=torch.float64)
  */
  const Tensor a = fp::tensor({1.5f, -2.f, 3.f});
  Tensor b = a;  // a lazy copy: the write must not reach a
  b += a;
  EXPECT_EQ(b.to_vector<double>(), truth<std::vector<double>>("b.tolist()"));
  EXPECT_EQ(a.to_vector<double>(), truth<std::vector<double>>("a.tolist()"));
  // The same on the in-place route (64 KiB and up).
  const Tensor big = fp::randn({1 << 15});
  const Tensor big_before = big.clone();
  Tensor doubled = big;
  doubled += big;
  EXPECT_TRUE(fp::aten::equal(doubled, big * 2.0));
  EXPECT_TRUE(fp::aten::equal(big, big_before));
  Tensor h = fp::tensor({1.0, 2.0}, DType::F16);
  h += fp::tensor({0.1, 0.2});
  EXPECT_EQ(h.dtype(), DType::F16);
  EXPECT_EQ(h.to_vector<double>(), truth<std::vector<double>>("h.tolist()"));
}

long minor_page_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

TEST(InPlace, FloatAddWritesWithoutATemporary) {
  if (RUNNING_ON_VALGRIND) GTEST_SKIP() << "valgrind's malloc maps memory its own way";
  // 48 MiB: above the largest mmap threshold glibc uses, so a temporary this
  // size (add, then copy_ back) would be mapped afresh and fault each of its
  // 12,288 pages; libtorch's in-place kernel touches only pages already there.
  constexpr std::int64_t floats = std::int64_t{12} << 20;
  Tensor t = fp::ones({floats});
  const Tensor u = fp::ones({floats});
  const long before = minor_page_faults();
  t += u;
  t -= u;
  EXPECT_LT(minor_page_faults() - before, 1024);
  EXPECT_EQ(t.sum().item<float>(), static_cast<float>(floats));
}

TEST(InPlace, MethodsChainAndWorkOnMutableViews) {
  /*
  #|PYTHON
  t = torch.zeros(2, 3)
  t[1].fill_(2).add_(1).clamp_(None, 2.5)
  t[0].copy_(torch.tensor([1., -1., 4.])).abs_().sqrt_()
  */
  Tensor t = fp::zeros({2, 3});
  t.i_mut(1).fill_(2).add_(1).clamp_(std::nullopt, 2.5);
  t.i_mut(0).copy_(fp::tensor({1.f, -1.f, 4.f})).abs_().sqrt_();
  EXPECT_EQ(t.to_vector<double>(), truth<std::vector<double>>("t.flatten().tolist()"));
}

TEST(InPlaceErrors, ResultsThatCannotBeCastBack) {
  /*
  #|PYTHON
  from truth_helpers import message
  int_plus_float = message(lambda: torch.tensor([1, 2]).add_(2.5))
  int_times_float = message(lambda: torch.tensor([1, 2]).mul_(torch.tensor([2.5, 1.0])))
  */
  Tensor integers = fp::tensor({int64_t{1}, int64_t{2}});
  const std::string int_plus_float =
      "result type Float can't be cast to the desired output type Long";  // #PYTHON int_plus_float
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, int_plus_float, integers.add_(2.5));
  const std::string int_times_float =
      "result type Float can't be cast to the desired output type Long";  // #PYTHON int_times_float
  EXPECT_TORCH_ERROR(int_times_float, integers.mul_(fp::tensor({2.5f, 1.f})));
  EXPECT_EQ(integers.to_vector<int64_t>(), (std::vector<int64_t>{1, 2}));
}

#if FP_BORROW_CHECK
TEST(InPlaceErrors, BorrowRulesApply) {
  Tensor t = fp::tensor({1.f, 2.f});
  const fp::TensorView view = t;
  EXPECT_FP_ERROR(fp::ErrorCode::Borrow, "fp::BorrowError", t.add_(1));
  EXPECT_FP_ERROR(fp::ErrorCode::Borrow, "fp::BorrowError", t.mul_(2));
  EXPECT_FP_ERROR(fp::ErrorCode::Borrow, "fp::BorrowError", t += 1);
  EXPECT_FP_ERROR(fp::ErrorCode::Borrow, "fp::BorrowError", t.fill_(0));
}
#endif

TEST(ArithmeticErrors, PyTorchsMessages) {
  /*
  #|PYTHON
  from truth_helpers import message
  shape = message(lambda: torch.ones(2, 3) + torch.ones(4))
  bool_sub = message(lambda: torch.tensor([True]) - torch.tensor([False]))
  bool_int_sub = message(lambda: torch.tensor([True]) - 1)
  int_neg_pow = message(lambda: torch.tensor([2]) ** -1)
  mm = message(lambda: torch.ones(2, 3).mm(torch.ones(2, 3)))
  */
  const std::string shape =
      "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension "
      "1";  // #PYTHON shape
  EXPECT_TORCH_ERROR(shape, fp::ones({2, 3}) + fp::ones({4}));
  EXPECT_TORCH_ERROR(shape, fp::ones({2, 3}) - fp::ones({4}));
  EXPECT_TORCH_ERROR(shape, fp::ones({2, 3}) * fp::ones({4}));
  const std::string bool_sub =
      "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
      "`logical_xor()` operator instead.";  // #PYTHON bool_sub
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, bool_sub,
                  fp::tensor(std::vector<bool>{true}) - fp::tensor(std::vector<bool>{false}));
  const std::string bool_int_sub =
      "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
      "invert a mask, use the `~` or `logical_not()` operator instead.";  // #PYTHON bool_int_sub
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, bool_int_sub,
                  fp::tensor(std::vector<bool>{true}) - 1);
  const std::string int_neg_pow =
      "Integers to negative integer powers are not allowed.";  // #PYTHON int_neg_pow
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, int_neg_pow, fp::tensor({int64_t{2}}).pow(-1));
  const std::string mm = truth<std::string>("mm");  // libtorch's wording changes between releases
  EXPECT_TORCH_ERROR(mm, fp::ones({2, 3}).mm(fp::ones({2, 3})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "the tensor handle is null", Tensor() + 1);
}

}  // namespace
