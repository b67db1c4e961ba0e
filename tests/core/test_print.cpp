// fp::to_string / operator<< against Python's repr(): every dtype, shapes from
// 0-D to 4-D, empty and summarised tensors, line wrapping, the choice of
// number format, devices, sparse layouts, each print option, options changed
// from another thread, and the options that are refused.
//
// Multi-line texts are compared line by line (`Lines`, from Python's
// `repr(t).split("\n")`): a failure then shows the line that differs, and
// clang-format keeps each expected line in one literal.
//
// Why this file is long: one case per dtype, layout and print option, each against Python's repr.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include <atomic>
#include <complex>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/expect_error.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
def varied(n, dtype=torch.float32):
    # Signed, non-integral values that C++ computes identically.
    return ((torch.arange(n, dtype=torch.float64) * 37 % 101 - 50) / 7).to(dtype)

def counting(n, dtype=torch.float32):
    return torch.arange(n, dtype=torch.float64).to(dtype)

def repr_with(t, **options):
    # Python's options are global too: restore them, as ScopedPrintOptions does.
    torch.set_printoptions(**options)
    try:
        return repr(t)
    finally:
        torch.set_printoptions(profile="default")

def repr_on_device(t, device):
    # The device may be missing where this runs: torch's own pieces build the
    # text of t moved there (its elements, then the device suffix added first).
    prefix = "tensor("
    body = torch._tensor_str._tensor_str(t, len(prefix))
    suffixes = [f"device='{device}'"]
    return torch._tensor_str._add_suffixes(prefix + body, suffixes, len(prefix), False)
*/

namespace {

using fp_test::truth;

using fp::DType;
using fp::Tensor;
using Lines = std::vector<std::string>;

/// Python's `text.split("\n")`.
Lines lines(const std::string& text) {
  Lines result;
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    result.push_back(text.substr(start, end - start));
  }
  result.push_back(text.substr(start));
  return result;
}

/// Python: varied(n, dtype) above.
Tensor varied(std::int64_t n, DType dtype = DType::F32) {
  std::vector<double> values;
  for (std::int64_t i = 0; i < n; ++i)
    values.push_back(static_cast<double>(i * 37 % 101 - 50) / 7);
  return fp::tensor(values, dtype);
}

/// Python: counting(n, dtype) above, i.e. torch.arange(n).to(dtype).
Tensor counting(std::int64_t n, DType dtype = DType::F32) {
  std::vector<double> values;
  for (std::int64_t i = 0; i < n; ++i)
    values.push_back(static_cast<double>(i));
  return fp::tensor(values, dtype);
}

/// Python: t.reshape(sizes).
Tensor reshaped(const Tensor& t, std::vector<std::int64_t> sizes) {
  return fp::dispatch<Tensor>("aten::reshape", "", t, sizes);
}

/// Python: torch.empty(sizes, dtype=dtype, device="meta"). Made with
/// empty_strided: libtorch's `empty` on meta reads an uninitialised optional
/// (a valgrind report inside libtorch that its suppressions do not cover).
Tensor meta(std::vector<std::int64_t> sizes, DType dtype = DType::F32) {
  std::vector<std::int64_t> strides(sizes.size(), 1);
  for (std::size_t d = sizes.size(); d-- > 1;)
    strides[d - 1] = strides[d] * sizes[d];
  return fp::dispatch<Tensor>("aten::empty_strided", "", sizes, strides, dtype, std::nullopt,
                              fp::Device::meta());
}

/// Python: torch.tensor(bytes, dtype=torch.uint8).view(dtype).
Tensor from_bytes(const std::vector<std::uint8_t>& bytes, DType dtype) {
  return fp::dispatch<Tensor>("aten::view", "dtype", fp::tensor(bytes), dtype);
}

/// Sets print options for one scope, then restores the previous ones.
class ScopedPrintOptions {
 public:
  explicit ScopedPrintOptions(const fp::PrintOptions& options) : saved_(fp::get_printoptions()) {
    fp::set_printoptions(options);
  }
  ~ScopedPrintOptions() { fp::set_printoptions(saved_); }
  ScopedPrintOptions(const ScopedPrintOptions&) = delete;
  ScopedPrintOptions& operator=(const ScopedPrintOptions&) = delete;

 private:
  fp::PrintOptions saved_;
};

/// Every test must leave the default options behind.
class Print : public ::testing::Test {
 protected:
  void TearDown() override { EXPECT_EQ(fp::get_printoptions(), fp::PrintOptions{}); }
};

// --- dtypes ---------------------------------------------------------------------

TEST_F(Print, Float32IsTheDefaultDtype) {
  /*
  #|PYTHON
  t = torch.tensor([1.5, -2.25, 3.0])
  */
  const Tensor t = fp::tensor({1.5f, -2.25f, 3.f});
  EXPECT_EQ(fp::to_string(t), "tensor([ 1.5000, -2.2500,  3.0000])");  // #PYTHON repr(t)
}

TEST_F(Print, IntegralFloatsPrintWithATrailingPoint) {
  /*
  #|PYTHON
  t = torch.tensor([1.0, -2.0, 300.0])
  */
  const Tensor t = fp::tensor({1.f, -2.f, 300.f});
  EXPECT_EQ(fp::to_string(t), "tensor([  1.,  -2., 300.])");  // #PYTHON repr(t)
}

TEST_F(Print, Float64AndFloat16AndBFloat16NameTheirDtype) {
  /*
  #|PYTHON
  d = torch.tensor([0.1, 2.5, -3.0], dtype=torch.float64)
  h = torch.tensor([0.1, 2.5, -3.0], dtype=torch.float16)
  b = torch.tensor([0.1, 2.5, -3.0], dtype=torch.bfloat16)
  */
  const std::vector<double> values = {0.1, 2.5, -3.0};
  EXPECT_EQ(fp::to_string(fp::tensor(values)),
            "tensor([ 0.1000,  2.5000, -3.0000], dtype=torch.float64)");  // #PYTHON repr(d)
  EXPECT_EQ(fp::to_string(fp::tensor(values, DType::F16)),
            "tensor([ 0.1000,  2.5000, -3.0000], dtype=torch.float16)");  // #PYTHON repr(h)
  EXPECT_EQ(fp::to_string(fp::tensor(values, DType::BF16)),
            "tensor([ 0.1001,  2.5000, -3.0000], dtype=torch.bfloat16)");  // #PYTHON repr(b)
}

TEST_F(Print, Bool) {
  /*
  #|PYTHON
  t = torch.tensor([[True, False], [False, True]])
  */
  const Lines expected = {
      "tensor([[ True, False],",
      "        [False,  True]])",
  };  // #PYTHON repr(t).split("\n")
  EXPECT_EQ(lines(fp::to_string(fp::tensor({{true, false}, {false, true}}))), expected);
  EXPECT_EQ(fp::to_string(fp::tensor(false)),
            "tensor(False)");  // #PYTHON repr(torch.tensor(False))
}

TEST_F(Print, SignedIntegers) {
  /*
  #|PYTHON
  int64 = torch.tensor([-100, 0, 7, 127], dtype=torch.int64)
  int32 = torch.tensor([-100, 0, 7, 127], dtype=torch.int32)
  int16 = torch.tensor([-100, 0, 7, 127], dtype=torch.int16)
  int8 = torch.tensor([-100, 0, 7, 127], dtype=torch.int8)
  */
  const std::vector<std::int64_t> values = {-100, 0, 7, 127};
  EXPECT_EQ(fp::to_string(fp::tensor(values, DType::I64)),
            "tensor([-100,    0,    7,  127])");  // #PYTHON repr(int64)
  EXPECT_EQ(fp::to_string(fp::tensor(values, DType::I32)),
            "tensor([-100,    0,    7,  127], dtype=torch.int32)");  // #PYTHON repr(int32)
  EXPECT_EQ(fp::to_string(fp::tensor(values, DType::I16)),
            "tensor([-100,    0,    7,  127], dtype=torch.int16)");  // #PYTHON repr(int16)
  EXPECT_EQ(fp::to_string(fp::tensor(values, DType::I8)),
            "tensor([-100,    0,    7,  127], dtype=torch.int8)");  // #PYTHON repr(int8)
}

TEST_F(Print, UnsignedIntegers) {
  /*
  #|PYTHON
  uint8 = torch.tensor([0, 9, 200], dtype=torch.uint8)
  uint16 = torch.tensor([0, 9, 200], dtype=torch.uint16)
  uint32 = torch.tensor([0, 9, 200], dtype=torch.uint32)
  uint64 = torch.tensor([0, 9, 200], dtype=torch.uint64)
  */
  const std::vector<std::int64_t> values = {0, 9, 200};
  EXPECT_EQ(fp::to_string(fp::tensor(values, DType::U8)),
            "tensor([  0,   9, 200], dtype=torch.uint8)");  // #PYTHON repr(uint8)
  EXPECT_EQ(fp::to_string(fp::tensor(values, DType::U16)),
            "tensor([  0,   9, 200], dtype=torch.uint16)");  // #PYTHON repr(uint16)
  EXPECT_EQ(fp::to_string(fp::tensor(values, DType::U32)),
            "tensor([  0,   9, 200], dtype=torch.uint32)");  // #PYTHON repr(uint32)
  EXPECT_EQ(fp::to_string(fp::tensor(values, DType::U64)),
            "tensor([  0,   9, 200], dtype=torch.uint64)");  // #PYTHON repr(uint64)
}

TEST_F(Print, Int64ExtremesAreExact) {
  /*
  #|PYTHON
  t = torch.tensor([2**63 - 1, -2**63, 2**53 + 1])
  */
  const Tensor t = fp::tensor({INT64_MAX, INT64_MIN, std::int64_t{9007199254740993}});
  EXPECT_EQ(fp::to_string(t),
            "tensor([ 9223372036854775807, -9223372036854775808,     9007199254740993])");
  // #PYTHON repr(t)
}

TEST_F(Print, UInt64BeyondInt64IsExact) {
  /*
  #|PYTHON
  t = torch.tensor([2**64 - 1, 2**63, 0], dtype=torch.uint64)
  */
  const Tensor t = fp::tensor({UINT64_MAX, std::uint64_t{1} << 63, std::uint64_t{0}});
  const Lines expected = {
      "tensor([18446744073709551615,  9223372036854775808,                    0],",
      "       dtype=torch.uint64)",
  };  // #PYTHON repr(t).split("\n")
  EXPECT_EQ(lines(fp::to_string(t)), expected);
}

TEST_F(Print, Complex64IsTheDefaultComplex) {
  /*
  #|PYTHON
  t = torch.tensor([1 + 2j, -3.5 - 0.5j, 0.25j])
  */
  using C = std::complex<float>;
  const Tensor t = fp::tensor({C(1, 2), C(-3.5, -0.5), C(0, 0.25)});
  EXPECT_EQ(fp::to_string(t),
            "tensor([ 1.0000+2.0000j, -3.5000-0.5000j,  0.0000+0.2500j])");  // #PYTHON repr(t)
}

TEST_F(Print, Complex128AndComplex32NameTheirDtype) {
  /*
  #|PYTHON
  values = [1 + 2j, -3.5 - 0.5j, 0.25j]
  double = torch.tensor(values, dtype=torch.complex128)
  half = torch.tensor(values, dtype=torch.complex32)
  */
  using C = std::complex<double>;
  const std::vector<C> values = {C(1, 2), C(-3.5, -0.5), C(0, 0.25)};
  const Lines double_lines = {
      "tensor([ 1.0000+2.0000j, -3.5000-0.5000j,  0.0000+0.2500j],",
      "       dtype=torch.complex128)",
  };  // #PYTHON repr(double).split("\n")
  EXPECT_EQ(lines(fp::to_string(fp::tensor(values))), double_lines);
  const Lines half_lines = {
      "tensor([ 1.0000+2.0000j, -3.5000-0.5000j,  0.0000+0.2500j],",
      "       dtype=torch.complex32)",
  };  // #PYTHON repr(half).split("\n")
  EXPECT_EQ(lines(fp::to_string(fp::tensor(values, DType::C32))), half_lines);
}

TEST_F(Print, ComplexPartsFormatIndependently) {
  /*
  #|PYTHON
  t = torch.tensor([complex(math.nan, math.inf), complex(-0.0, -0.0), 1e10 + 1e-8j, 2 - 1j])
  */
  using C = std::complex<float>;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor t = fp::tensor({C(nan, inf), C(-0.f, -0.f), C(1e10f, 1e-8f), C(2, -1)});
  const Lines expected = {
      "tensor([       nan+infj, -0.0000e+00-0.0000e+00j, 1.0000e+10+1.0000e-08j,",
      "        2.0000e+00-1.0000e+00j])",
  };  // #PYTHON repr(t).split("\n")
  EXPECT_EQ(lines(fp::to_string(t)), expected);
}

TEST_F(Print, ComplexScalar) {
  /*
  #|PYTHON
  t = torch.tensor(1 - 0.5j)
  */
  EXPECT_EQ(fp::to_string(fp::tensor(std::complex<float>(1, -0.5))),
            "tensor(1.-0.5000j)");  // #PYTHON repr(t)
}

TEST_F(Print, Float8Types) {
  /*
  #|PYTHON
  values = torch.tensor([1.5, -2.0, 0.25, 3.0])
  e4m3fn, e5m2 = values.to(torch.float8_e4m3fn), values.to(torch.float8_e5m2)
  e4m3fnuz, e5m2fnuz = values.to(torch.float8_e4m3fnuz), values.to(torch.float8_e5m2fnuz)
  e8m0fnu = values.to(torch.float8_e8m0fnu)
  */
  const std::vector<float> values = {1.5f, -2.f, 0.25f, 3.f};
  EXPECT_EQ(fp::to_string(fp::tensor(values, DType::F8_E4M3FN)),
            "tensor([ 1.5000, -2.0000,  0.2500,  3.0000], dtype=torch.float8_e4m3fn)");
  // #PYTHON repr(e4m3fn)
  EXPECT_EQ(fp::to_string(fp::tensor(values, DType::F8_E5M2)),
            "tensor([ 1.5000, -2.0000,  0.2500,  3.0000], dtype=torch.float8_e5m2)");
  // #PYTHON repr(e5m2)
  EXPECT_EQ(fp::to_string(fp::tensor(values, DType::F8_E4M3FNUZ)),
            "tensor([ 1.5000, -2.0000,  0.2500,  3.0000], dtype=torch.float8_e4m3fnuz)");
  // #PYTHON repr(e4m3fnuz)
  EXPECT_EQ(fp::to_string(fp::tensor(values, DType::F8_E5M2FNUZ)),
            "tensor([ 1.5000, -2.0000,  0.2500,  3.0000], dtype=torch.float8_e5m2fnuz)");
  // #PYTHON repr(e5m2fnuz)
  EXPECT_EQ(fp::to_string(fp::tensor(values, DType::F8_E8M0FNU)),
            "tensor([2.0000, 2.0000, 0.2500, 4.0000], dtype=torch.float8_e8m0fnu)");
  // #PYTHON repr(e8m0fnu)
}

TEST_F(Print, Float8E8M0FollowsPythonsQuirks) {
  // Python's isfinite() is true for its NaN, and its smallest value 2**-127
  // counts as zero: both change the number format.
  /*
  #|PYTHON
  def e8m0(*bytes):
      return torch.tensor(bytes, dtype=torch.uint8).view(torch.float8_e8m0fnu)
  with_nan, tiny, wide = e8m0(255, 127, 0), e8m0(127, 0), e8m0(127, 0, 254)
  */
  // (torch 2.15 made isfinite false for that NaN, which changes the format again.)
  EXPECT_EQ(fp::to_string(from_bytes({255, 127, 0}, DType::F8_E8M0FNU)),
            truth<std::string>("repr(with_nan)"));
  EXPECT_EQ(fp::to_string(from_bytes({127, 0}, DType::F8_E8M0FNU)),
            "tensor([1., 0.], dtype=torch.float8_e8m0fnu)");  // #PYTHON repr(tiny)
  EXPECT_EQ(fp::to_string(from_bytes({127, 0, 254}, DType::F8_E8M0FNU)),
            "tensor([1.0000e+00, 5.8775e-39, 1.7014e+38], dtype=torch.float8_e8m0fnu)");
  // #PYTHON repr(wide)
}

TEST_F(Print, Float4ShowsItsBytes) {
  /*
  #|PYTHON
  t = torch.tensor([[1, 2], [3, 250]], dtype=torch.uint8).view(torch.float4_e2m1fn_x2)
  */
  const Tensor t = reshaped(from_bytes({1, 2, 3, 250}, DType::F4_E2M1FN_X2), {2, 2});
  const Lines expected = {
      "tensor([[  1.,   2.],",
      "        [  3., 250.]], dtype=torch.float4_e2m1fn_x2)",
  };  // #PYTHON repr(t).split("\n")
  EXPECT_EQ(lines(fp::to_string(t)), expected);
}

TEST_F(Print, Float4Summarised) {
  /*
  #|PYTHON
  t = (torch.arange(2000) % 256).to(torch.uint8).view(torch.float4_e2m1fn_x2)
  */
  std::vector<std::uint8_t> bytes(2000);
  for (std::size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<std::uint8_t>(i % 256);
  const Lines expected = {
      "tensor([  0.,   1.,   2.,  ..., 205., 206., 207.],",
      "       dtype=torch.float4_e2m1fn_x2)",
  };  // #PYTHON repr(t).split("\n")
  EXPECT_EQ(lines(fp::to_string(from_bytes(bytes, DType::F4_E2M1FN_X2))), expected);
}

TEST_F(Print, Float4ScalarPrintsWherePythonRaises) {
  // Python: "_local_scalar_dense_cpu" not implemented for 'Float4_e2m1fn_x2'.
  // flash_powder prints the byte as the N-dim case does.
  const Tensor t = reshaped(from_bytes({3}, DType::F4_E2M1FN_X2), {});
  EXPECT_EQ(fp::to_string(t), "tensor(3., dtype=torch.float4_e2m1fn_x2)");
}

// --- shapes ------------------------------------------------------------------------

TEST_F(Print, Scalars) {
  /*
  #|PYTHON
  */
  EXPECT_EQ(fp::to_string(fp::tensor(2.5f)), "tensor(2.5000)");  // #PYTHON repr(torch.tensor(2.5))
  EXPECT_EQ(fp::to_string(fp::tensor(std::int64_t{5})),
            "tensor(5)");  // #PYTHON repr(torch.tensor(5))
  EXPECT_EQ(
      fp::to_string(fp::tensor(1e-8)),
      "tensor(1.0000e-08, dtype=torch.float64)");  // #PYTHON repr(torch.tensor(1e-8).double())
  EXPECT_EQ(fp::to_string(fp::tensor(-0.f)), "tensor(-0.)");  // #PYTHON repr(torch.tensor(-0.0))
  EXPECT_EQ(fp::to_string(fp::tensor(std::numeric_limits<float>::quiet_NaN())),
            "tensor(nan)");  // #PYTHON repr(torch.tensor(math.nan))
  EXPECT_EQ(fp::to_string(fp::tensor(std::uint8_t{7})),
            "tensor(7, dtype=torch.uint8)");  // #PYTHON repr(torch.tensor(7, dtype=torch.uint8))
}

TEST_F(Print, TwoDimensions) {
  /*
  #|PYTHON
  t = varied(6).reshape(2, 3)
  */
  const Lines expected = {
      "tensor([[-7.1429, -1.8571,  3.4286],",
      "        [-5.7143, -0.4286,  4.8571]])",
  };  // #PYTHON repr(t).split("\n")
  EXPECT_EQ(lines(fp::to_string(reshaped(varied(6), {2, 3}))), expected);
}

TEST_F(Print, ThreeDimensionsSeparateBlocksByABlankLine) {
  /*
  #|PYTHON
  t = counting(24, torch.int64).reshape(2, 3, 4)
  */
  const Lines expected = {
      "tensor([[[ 0,  1,  2,  3],",   "         [ 4,  5,  6,  7],",
      "         [ 8,  9, 10, 11]],",  "",
      "        [[12, 13, 14, 15],",   "         [16, 17, 18, 19],",
      "         [20, 21, 22, 23]]])",
  };  // #PYTHON repr(t).split("\n")
  EXPECT_EQ(lines(fp::to_string(reshaped(counting(24, DType::I64), {2, 3, 4}))), expected);
}

TEST_F(Print, FourDimensions) {
  /*
  #|PYTHON
  t = varied(24, torch.float64).reshape(2, 2, 3, 2)
  */
  const Lines expected = {
      "tensor([[[[-7.1429, -1.8571],",
      "          [ 3.4286, -5.7143],",
      "          [-0.4286,  4.8571]],",
      "",
      "         [[-4.2857,  1.0000],",
      "          [ 6.2857, -2.8571],",
      "          [ 2.4286, -6.7143]]],",
      "",
      "",
      "        [[[-1.4286,  3.8571],",
      "          [-5.2857,  0.0000],",
      "          [ 5.2857, -3.8571]],",
      "",
      "         [[ 1.4286,  6.7143],",
      "          [-2.4286,  2.8571],",
      "          [-6.2857, -1.0000]]]], dtype=torch.float64)",
  };  // #PYTHON repr(t).split("\n")
  EXPECT_EQ(lines(fp::to_string(reshaped(varied(24, DType::F64), {2, 2, 3, 2}))), expected);
}

TEST_F(Print, DimensionsOfSizeOne) {
  /*
  #|PYTHON
  t = torch.tensor([[[7.5]]])
  */
  EXPECT_EQ(fp::to_string(fp::tensor({{{7.5f}}})), "tensor([[[7.5000]]])");  // #PYTHON repr(t)
}

TEST_F(Print, EmptyTensorsShowShapeAndDtype) {
  /*
  #|PYTHON
  */
  EXPECT_EQ(fp::to_string(counting(0)), "tensor([])");  // #PYTHON repr(torch.empty(0))
  EXPECT_EQ(fp::to_string(reshaped(counting(0), {0, 3})),
            "tensor([], size=(0, 3))");  // #PYTHON repr(torch.empty(0, 3))
  EXPECT_EQ(fp::to_string(reshaped(counting(0, DType::I64), {2, 0, 4})),
            "tensor([], size=(2, 0, 4), dtype=torch.int64)");
  // #PYTHON repr(torch.empty(2, 0, 4).long())
  EXPECT_EQ(fp::to_string(counting(0, DType::I64)),
            "tensor([], dtype=torch.int64)");  // #PYTHON repr(torch.empty(0, dtype=torch.int64))
  EXPECT_EQ(fp::to_string(counting(0, DType::Bool)),
            "tensor([], dtype=torch.bool)");  // #PYTHON repr(torch.empty(0, dtype=torch.bool))
  EXPECT_EQ(
      fp::to_string(counting(0, DType::C64)),
      "tensor([], dtype=torch.complex64)");  // #PYTHON repr(torch.empty(0, dtype=torch.complex64))
}

TEST_F(Print, NonContiguousTensorsPrintInLogicalOrder) {
  /*
  #|PYTHON
  t = varied(6).reshape(2, 3).transpose(0, 1)
  */
  const Tensor t =
      fp::dispatch<Tensor>("aten::transpose", "int", reshaped(varied(6), {2, 3}), 0, 1);
  const Lines expected = {
      "tensor([[-7.1429, -5.7143],",
      "        [-1.8571, -0.4286],",
      "        [ 3.4286,  4.8571]])",
  };  // #PYTHON repr(t).split("\n")
  EXPECT_EQ(lines(fp::to_string(t)), expected);
}

TEST_F(Print, ConjugateAndNegativeBitsAreResolved) {
  /*
  #|PYTHON
  c = torch.tensor([1 + 1j, 2 - 3j]).conj()
  n = torch._neg_view(torch.tensor([1.5, -2.0]))
  */
  using C = std::complex<float>;
  const Tensor c = fp::dispatch<Tensor>("aten::conj", "", fp::tensor({C(1, 1), C(2, -3)}));
  const Tensor n = fp::dispatch<Tensor>("aten::_neg_view", "", fp::tensor({1.5f, -2.f}));
  EXPECT_EQ(fp::to_string(c), "tensor([1.-1.j, 2.+3.j])");    // #PYTHON repr(c)
  EXPECT_EQ(fp::to_string(n), "tensor([-1.5000,  2.0000])");  // #PYTHON repr(n)
}

// --- summaries of large tensors ------------------------------------------------------

TEST_F(Print, LongVectorIsSummarised) {
  /*
  #|PYTHON
  t = varied(2000)
  */
  const Lines expected = {
      "tensor([-7.1429, -1.8571,  3.4286,  ...,  1.1429,  6.4286, -2.7143])",
  };  // #PYTHON repr(t).split("\n")
  EXPECT_EQ(lines(fp::to_string(varied(2000))), expected);
}

TEST_F(Print, LargeMatrixIsSummarisedInBothDimensions) {
  /*
  #|PYTHON
  t = counting(1600).reshape(40, 40)
  */
  const Lines expected = {
      "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 3.7000e+01, 3.8000e+01,",
      "         3.9000e+01],",
      "        [4.0000e+01, 4.1000e+01, 4.2000e+01,  ..., 7.7000e+01, 7.8000e+01,",
      "         7.9000e+01],",
      "        [8.0000e+01, 8.1000e+01, 8.2000e+01,  ..., 1.1700e+02, 1.1800e+02,",
      "         1.1900e+02],",
      "        ...,",
      "        [1.4800e+03, 1.4810e+03, 1.4820e+03,  ..., 1.5170e+03, 1.5180e+03,",
      "         1.5190e+03],",
      "        [1.5200e+03, 1.5210e+03, 1.5220e+03,  ..., 1.5570e+03, 1.5580e+03,",
      "         1.5590e+03],",
      "        [1.5600e+03, 1.5610e+03, 1.5620e+03,  ..., 1.5970e+03, 1.5980e+03,",
      "         1.5990e+03]])",
  };  // #PYTHON repr(t).split("\n")
  EXPECT_EQ(lines(fp::to_string(reshaped(counting(1600), {40, 40}))), expected);
}

TEST_F(Print, OnlyLongDimensionsAreSummarised) {
  /*
  #|PYTHON
  t = varied(1500, torch.float64).reshape(3, 500)
  */
  const Lines expected = {
      "tensor([[-7.1429, -1.8571,  3.4286,  ..., -6.1429, -0.8571,  4.4286],",
      "        [-4.7143,  0.5714,  5.8571,  ..., -3.7143,  1.5714,  6.8571],",
      "        [-2.2857,  3.0000, -6.1429,  ..., -1.2857,  4.0000, -5.1429]],",
      "       dtype=torch.float64)",
  };  // #PYTHON repr(t).split("\n")
  EXPECT_EQ(lines(fp::to_string(reshaped(varied(1500, DType::F64), {3, 500}))), expected);
}

TEST_F(Print, SummarisedThreeDimensions) {
  /*
  #|PYTHON
  t = counting(1100, torch.int64).reshape(10, 10, 11)
  */
  const Lines expected = truth<Lines>(R"(repr(t).split("\n"))");
  EXPECT_EQ(lines(fp::to_string(reshaped(counting(1100, DType::I64), {10, 10, 11}))), expected);
}

TEST_F(Print, SummarisedFourDimensions) {
  /*
  #|PYTHON
  t = varied(2 * 7 * 8 * 10).reshape(2, 7, 8, 10)
  */
  const Lines expected = truth<Lines>(R"(repr(t).split("\n"))");
  EXPECT_EQ(lines(fp::to_string(reshaped(varied(2 * 7 * 8 * 10), {2, 7, 8, 10}))), expected);
}

TEST_F(Print, SummaryFormatsOnlyThePrintedElements) {
  // The huge middle value is elided, so it does not force scientific notation.
  /*
  #|PYTHON
  t = counting(2000)
  t[1000] = 1e20
  */
  std::vector<float> values(2000);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(i);
  values[1000] = 1e20f;
  const Lines expected = {
      "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,",
      "        1.9990e+03])",
  };  // #PYTHON repr(t).split("\n")
  EXPECT_EQ(lines(fp::to_string(fp::tensor(values))), expected);
}

TEST_F(Print, SummarisedComplex) {
  /*
  #|PYTHON
  t = varied(1200, torch.complex64)
  */
  const Lines expected = {
      "tensor([-7.1429+0.j, -1.8571+0.j,  3.4286+0.j,  ...,  0.1429+0.j,  5.4286+0.j,",
      "        -3.7143+0.j])",
  };  // #PYTHON repr(t).split("\n")
  EXPECT_EQ(lines(fp::to_string(varied(1200, DType::C64))), expected);
}

TEST_F(Print, SummarisedBool) {
  /*
  #|PYTHON
  t = counting(1200, torch.bool)
  */
  EXPECT_EQ(fp::to_string(counting(1200, DType::Bool)),
            "tensor([False,  True,  True,  ...,  True,  True,  True])");  // #PYTHON repr(t)
}

// --- line wrapping -------------------------------------------------------------------

TEST_F(Print, WideVectorWrapsAtTheLineWidth) {
  /*
  #|PYTHON
  t = varied(30)
  */
  const Lines expected = {
      "tensor([-7.1429, -1.8571,  3.4286, -5.7143, -0.4286,  4.8571, -4.2857,  1.0000,",
      "         6.2857, -2.8571,  2.4286, -6.7143, -1.4286,  3.8571, -5.2857,  0.0000,",
      "         5.2857, -3.8571,  1.4286,  6.7143, -2.4286,  2.8571, -6.2857, -1.0000,",
      "         4.2857, -4.8571,  0.4286,  5.7143, -3.4286,  1.8571])",
  };  // #PYTHON repr(t).split("\n")
  EXPECT_EQ(lines(fp::to_string(varied(30))), expected);
}

TEST_F(Print, WideMatrixRowsWrapUnderTheirBracket) {
  /*
  #|PYTHON
  t = varied(40).reshape(2, 20)
  */
  const Lines expected = {
      "tensor([[-7.1429, -1.8571,  3.4286, -5.7143, -0.4286,  4.8571, -4.2857,  1.0000,",
      "          6.2857, -2.8571,  2.4286, -6.7143, -1.4286,  3.8571, -5.2857,  0.0000,",
      "          5.2857, -3.8571,  1.4286,  6.7143],",
      "        [-2.4286,  2.8571, -6.2857, -1.0000,  4.2857, -4.8571,  0.4286,  5.7143,",
      "         -3.4286,  1.8571,  7.1429, -2.0000,  3.2857, -5.8571, -0.5714,  4.7143,",
      "         -4.4286,  0.8571,  6.1429, -3.0000]])",
  };  // #PYTHON repr(t).split("\n")
  EXPECT_EQ(lines(fp::to_string(reshaped(varied(40), {2, 20}))), expected);
}

TEST_F(Print, SuffixStaysOnTheLineWhileItFits) {
  /*
  #|PYTHON
  t = varied(3, torch.float64)
  */
  EXPECT_EQ(fp::to_string(varied(3, DType::F64)),
            "tensor([-7.1429, -1.8571,  3.4286], dtype=torch.float64)");  // #PYTHON repr(t)
}

TEST_F(Print, SuffixMovesToALineOfItsOwn) {
  /*
  #|PYTHON
  full = varied(8, torch.float64)
  wrapped = varied(20, torch.float64)
  */
  const Lines full_lines = {
      "tensor([-7.1429, -1.8571,  3.4286, -5.7143, -0.4286,  4.8571, -4.2857,  1.0000],",
      "       dtype=torch.float64)",
  };  // #PYTHON repr(full).split("\n")
  EXPECT_EQ(lines(fp::to_string(varied(8, DType::F64))), full_lines);
  const Lines wrapped_lines = {
      "tensor([-7.1429, -1.8571,  3.4286, -5.7143, -0.4286,  4.8571, -4.2857,  1.0000,",
      "         6.2857, -2.8571,  2.4286, -6.7143, -1.4286,  3.8571, -5.2857,  0.0000,",
      "         5.2857, -3.8571,  1.4286,  6.7143], dtype=torch.float64)",
  };  // #PYTHON repr(wrapped).split("\n")
  EXPECT_EQ(lines(fp::to_string(varied(20, DType::F64))), wrapped_lines);
}

// --- choice of number format --------------------------------------------------------------

TEST_F(Print, TinyOrHugeValuesSwitchToScientific) {
  /*
  #|PYTHON
  tiny = torch.tensor([1e-8, 1.0])
  huge = torch.tensor([1e10, 1.5])
  ratio = torch.tensor([0.001, 2.0])
  below = torch.tensor([1e-5])
  */
  EXPECT_EQ(fp::to_string(fp::tensor({1e-8f, 1.f})),
            "tensor([1.0000e-08, 1.0000e+00])");  // #PYTHON repr(tiny)
  EXPECT_EQ(fp::to_string(fp::tensor({1e10f, 1.5f})),
            "tensor([1.0000e+10, 1.5000e+00])");  // #PYTHON repr(huge)
  EXPECT_EQ(fp::to_string(fp::tensor({0.001f, 2.f})),
            "tensor([1.0000e-03, 2.0000e+00])");                          // #PYTHON repr(ratio)
  EXPECT_EQ(fp::to_string(fp::tensor({1e-5f})), "tensor([1.0000e-05])");  // #PYTHON repr(below)
}

TEST_F(Print, IntegralValuesInScientificNotation) {
  /*
  #|PYTHON
  big = torch.tensor([1e9, 2e9])
  spread = torch.tensor([100000.0, 1.0])
  within = torch.tensor([1000.0, 1.0])
  */
  EXPECT_EQ(fp::to_string(fp::tensor({1e9f, 2e9f})),
            "tensor([1.0000e+09, 2.0000e+09])");  // #PYTHON repr(big)
  EXPECT_EQ(fp::to_string(fp::tensor({100000.f, 1.f})),
            "tensor([1.0000e+05, 1.0000e+00])");  // #PYTHON repr(spread)
  EXPECT_EQ(fp::to_string(fp::tensor({1000.f, 1.f})),
            "tensor([1000.,    1.])");  // #PYTHON repr(within)
}

TEST_F(Print, NanInfinityAndNegativeZero) {
  /*
  #|PYTHON
  mixed = torch.tensor([math.nan, math.inf, -math.inf, 1.5, -0.0])
  integral = torch.tensor([math.nan, 1.0, -2.0])
  only_special = torch.tensor([-math.nan, -math.inf, 0.0, -0.0])
  */
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(fp::to_string(fp::tensor({nan, inf, -inf, 1.5f, -0.f})),
            "tensor([   nan,    inf,   -inf, 1.5000, -0.0000])");  // #PYTHON repr(mixed)
  EXPECT_EQ(fp::to_string(fp::tensor({nan, 1.f, -2.f})),
            "tensor([nan,  1., -2.])");  // #PYTHON repr(integral)
  EXPECT_EQ(fp::to_string(fp::tensor({-nan, -inf, 0.f, -0.f})),
            "tensor([nan, -inf, 0., -0.])");  // #PYTHON repr(only_special)
}

TEST_F(Print, NegativeValuesWidenTheColumn) {
  /*
  #|PYTHON
  t = torch.tensor([[-10.5, 2.0], [3.25, -0.125]], dtype=torch.float64)
  */
  const Lines expected = {
      "tensor([[-10.5000,   2.0000],",
      "        [  3.2500,  -0.1250]], dtype=torch.float64)",
  };  // #PYTHON repr(t).split("\n")
  EXPECT_EQ(lines(fp::to_string(fp::tensor({{-10.5, 2.0}, {3.25, -0.125}}))), expected);
}

// --- devices, layouts, views ---------------------------------------------------------------

TEST_F(Print, MetaTensorsShowTheirSizeInsteadOfElements) {
  /*
  #|PYTHON
  */
  EXPECT_EQ(
      fp::to_string(meta({2, 3})),
      "tensor(..., device='meta', size=(2, 3))");  // #PYTHON repr(torch.empty(2, 3, device="meta"))
  EXPECT_EQ(fp::to_string(meta({2, 3}, DType::I64)),
            "tensor(..., device='meta', size=(2, 3), dtype=torch.int64)");
  // #PYTHON repr(torch.empty(2, 3, device="meta").long())
  EXPECT_EQ(fp::to_string(meta({})),
            "tensor(..., device='meta', size=())");  // #PYTHON repr(torch.empty((), device="meta"))
  EXPECT_EQ(
      fp::to_string(meta({0, 3})),
      "tensor(..., device='meta', size=(0, 3))");  // #PYTHON repr(torch.empty(0, 3, device="meta"))
  EXPECT_EQ(
      fp::to_string(meta({5})),
      "tensor(..., device='meta', size=(5,))");  // #PYTHON repr(torch.empty(5, device="meta"))
}

TEST_F(Print, CudaTensorsNameTheirDevice) {
  if (!fp::cuda_is_available()) GTEST_SKIP() << "no CUDA device here";
  /*
  #|PYTHON
  t = varied(6).reshape(2, 3)
  */
  const Tensor on_gpu = fp::dispatch<Tensor>("aten::_to_copy", "", reshaped(varied(6), {2, 3}),
                                             std::nullopt, std::nullopt, fp::Device::cuda(0));
  const Lines expected = {
      "tensor([[-7.1429, -1.8571,  3.4286],",
      "        [-5.7143, -0.4286,  4.8571]], device='cuda:0')",
  };  // #PYTHON repr_on_device(t, "cuda:0").split("\n")
  EXPECT_EQ(lines(fp::to_string(on_gpu)), expected);
}

TEST_F(Print, CudaTensorsAreSummarisedOnTheDevice) {
  if (!fp::cuda_is_available()) GTEST_SKIP() << "no CUDA device here";
  /*
  #|PYTHON
  t = counting(1100, torch.int64).reshape(10, 10, 11)
  */
  const Tensor on_gpu =
      fp::dispatch<Tensor>("aten::_to_copy", "", reshaped(counting(1100, DType::I64), {10, 10, 11}),
                           std::nullopt, std::nullopt, fp::Device::cuda(0));
  const Lines expected = truth<Lines>(R"(repr_on_device(t, "cuda:0").split("\n"))");
  EXPECT_EQ(lines(fp::to_string(on_gpu)), expected);
}

TEST_F(Print, SparseCoo) {
  /*
  #|PYTHON
  t = torch.tensor([[0.0, 1.5], [2.0, 0.0]]).to_sparse()
  */
  const Tensor dense = fp::tensor({{0.f, 1.5f}, {2.f, 0.f}});
  const Lines expected = {
      "tensor(indices=tensor([[0, 1],",
      "                       [1, 0]]),",
      "       values=tensor([1.5000, 2.0000]),",
      "       size=(2, 2), nnz=2, layout=torch.sparse_coo)",
  };  // #PYTHON repr(t).split("\n")
  EXPECT_EQ(lines(fp::to_string(fp::dispatch<Tensor>("aten::to_sparse", "", dense))), expected);
}

TEST_F(Print, SparseCooWithoutElements) {
  /*
  #|PYTHON
  t = torch.zeros(2, 3, dtype=torch.int32).to_sparse()
  */
  const Tensor dense = reshaped(counting(6, DType::I32), {2, 3});
  const Tensor zeros = fp::dispatch<Tensor>("aten::mul", "Tensor", dense, fp::tensor(0));
  const Lines expected = {
      "tensor(indices=tensor([], size=(2, 0)),",
      "       values=tensor([], size=(0,)),",
      "       size=(2, 3), nnz=0, dtype=torch.int32, layout=torch.sparse_coo)",
  };  // #PYTHON repr(t).split("\n")
  EXPECT_EQ(lines(fp::to_string(fp::dispatch<Tensor>("aten::to_sparse", "", zeros))), expected);
}

TEST_F(Print, SparseCsrAndCsc) {
  /*
  #|PYTHON
  csr = torch.tensor([[0.0, 1.5], [2.0, 0.0]]).to_sparse_csr()
  csc = torch.tensor([[0.0, 1.5], [2.0, 0.0]], dtype=torch.float64).to_sparse_csc()
  */
  const Tensor dense = fp::tensor({{0.f, 1.5f}, {2.f, 0.f}});
  const Tensor dense64 = fp::tensor({{0.0, 1.5}, {2.0, 0.0}});
  const Lines csr_lines = {
      "tensor(crow_indices=tensor([0, 1, 2]),",
      "       col_indices=tensor([1, 0]),",
      "       values=tensor([1.5000, 2.0000]), size=(2, 2), nnz=2,",
      "       layout=torch.sparse_csr)",
  };  // #PYTHON repr(csr).split("\n")
  EXPECT_EQ(lines(fp::to_string(fp::dispatch<Tensor>("aten::to_sparse_csr", "", dense))),
            csr_lines);
  const Lines csc_lines = {
      "tensor(ccol_indices=tensor([0, 1, 2]),",
      "       row_indices=tensor([1, 0]),",
      "       values=tensor([2.0000, 1.5000]), size=(2, 2), nnz=2,",
      "       dtype=torch.float64, layout=torch.sparse_csc)",
  };  // #PYTHON repr(csc).split("\n")
  EXPECT_EQ(lines(fp::to_string(fp::dispatch<Tensor>("aten::to_sparse_csc", "", dense64))),
            csc_lines);
}

TEST_F(Print, SparseBsr) {
  /*
  #|PYTHON
  t = torch.tensor([[0.0, 1.5], [2.0, 0.0]]).to_sparse_bsr((1, 1))
  */
  const Tensor dense = fp::tensor({{0.f, 1.5f}, {2.f, 0.f}});
  const Tensor bsr =
      fp::dispatch<Tensor>("aten::to_sparse_bsr", "", dense, std::vector<std::int64_t>{1, 1});
  const Lines expected = {
      "tensor(crow_indices=tensor([0, 1, 2]),",
      "       col_indices=tensor([1, 0]),",
      "       values=tensor([[[1.5000]],",
      "",
      "                      [[2.0000]]]), size=(2, 2), nnz=2,",
      "       layout=torch.sparse_bsr)",
  };  // #PYTHON repr(t).split("\n")
  EXPECT_EQ(lines(fp::to_string(bsr)), expected);
}

TEST_F(Print, SparseMetaTensorsHideTheirParts) {
  /*
  #|PYTHON
  t = torch.tensor([[0.0, 1.5], [2.0, 0.0]]).to_sparse().to("meta")
  */
  const Tensor sparse =
      fp::dispatch<Tensor>("aten::to_sparse", "", fp::tensor({{0.f, 1.5f}, {2.f, 0.f}}));
  const Tensor on_meta = fp::dispatch<Tensor>("aten::_to_copy", "", sparse, std::nullopt,
                                              std::nullopt, fp::Device::meta());
  const Lines expected = {
      "tensor(indices=tensor(..., size=(2, 0)),",
      "       values=tensor(..., size=(0,)),",
      "       device='meta', size=(2, 2), layout=torch.sparse_coo)",
  };  // #PYTHON repr(t).split("\n")
  EXPECT_EQ(lines(fp::to_string(on_meta)), expected);
}

TEST_F(Print, OtherLayoutsPrintTheirDenseValues) {
  /*
  #|PYTHON
  t = torch.tensor([[0.5, -1.0], [2.0, 3.0]]).to_mkldnn()
  */
  const Tensor t =
      fp::dispatch<Tensor>("aten::to_mkldnn", "", fp::tensor({{0.5f, -1.f}, {2.f, 3.f}}));
  const Lines expected = {
      "tensor([[ 0.5000, -1.0000],",
      "        [ 2.0000,  3.0000]], layout=torch._mkldnn)",
  };  // #PYTHON repr(t).split("\n")
  EXPECT_EQ(lines(fp::to_string(t)), expected);
}

TEST_F(Print, ViewsPrintLikeTensors) {
  /*
  #|PYTHON
  t = varied(6).reshape(2, 3)
  */
  const Tensor t = reshaped(varied(6), {2, 3});
  const Lines expected = {
      "tensor([[-7.1429, -1.8571,  3.4286],",
      "        [-5.7143, -0.4286,  4.8571]])",
  };  // #PYTHON repr(t).split("\n")
  const fp::TensorView view = t;
  EXPECT_EQ(lines(fp::to_string(view)), expected);
  std::vector<float> buffer = t.to_vector<float>();
  const std::vector<std::int64_t> sizes = {2, 3};
  const fp::TensorMutView mut = fp::from_blob(std::span<float>(buffer), sizes);
  EXPECT_EQ(lines(fp::to_string(mut)), expected);
}

TEST_F(Print, StreamOperatorWritesTheSameText) {
  /*
  #|PYTHON
  t = torch.tensor([[1, 2], [3, 4]])
  */
  std::ostringstream out;
  out << fp::tensor({{std::int64_t{1}, std::int64_t{2}}, {std::int64_t{3}, std::int64_t{4}}});
  const Lines expected = {
      "tensor([[1, 2],",
      "        [3, 4]])",
  };  // #PYTHON repr(t).split("\n")
  EXPECT_EQ(lines(out.str()), expected);
}

TEST_F(Print, UndefinedTensorsSaySo) {
  // Python has no undefined tensor; printing one is not an error.
  const Tensor undefined;
  EXPECT_EQ(fp::to_string(undefined), "tensor(undefined)");
  EXPECT_EQ(fp::to_string(fp::TensorView()), "tensor(undefined)");
  Tensor moved = fp::tensor(1.f);
  const Tensor taker = std::move(moved);
  std::ostringstream out;
  out << moved;  // NOLINT(bugprone-use-after-move): a moved-from tensor is undefined
  EXPECT_EQ(out.str(), "tensor(undefined)");
}

// --- print options -----------------------------------------------------------------------

TEST_F(Print, DefaultOptionsArePythons) {
  /*
  #|PYTHON
  o = torch._tensor_str.get_printoptions()
  */
  const fp::PrintOptions options = fp::get_printoptions();
  EXPECT_EQ(options.precision, 4);                 // #PYTHON o["precision"]
  EXPECT_EQ(options.threshold, 1000);              // #PYTHON int(o["threshold"])
  EXPECT_EQ(options.edgeitems, 3);                 // #PYTHON o["edgeitems"]
  EXPECT_EQ(options.linewidth, 80);                // #PYTHON o["linewidth"]
  EXPECT_EQ(options.sci_mode.has_value(), false);  // #PYTHON o["sci_mode"] is not None
}

TEST_F(Print, SetOptionsAreReturnedWhole) {
  const fp::PrintOptions wanted{
      .precision = 7, .threshold = 12, .edgeitems = 2, .linewidth = 33, .sci_mode = false};
  const ScopedPrintOptions scope(wanted);
  EXPECT_EQ(fp::get_printoptions(), wanted);
}

TEST_F(Print, Precision) {
  /*
  #|PYTHON
  t = varied(4)
  */
  {
    const ScopedPrintOptions scope({.precision = 2});
    EXPECT_EQ(fp::to_string(varied(4)),
              "tensor([-7.14, -1.86,  3.43, -5.71])");  // #PYTHON repr_with(t, precision=2)
  }
  {
    const ScopedPrintOptions scope({.precision = 0});
    EXPECT_EQ(fp::to_string(varied(4)),
              "tensor([-7, -2,  3, -6])");  // #PYTHON repr_with(t, precision=0)
  }
}

TEST_F(Print, HighPrecisionShowsDoubleDigits) {
  /*
  #|PYTHON
  t = varied(4, torch.float64)
  */
  const ScopedPrintOptions scope({.precision = 12});
  const Lines expected = {
      "tensor([-7.142857142857, -1.857142857143,  3.428571428571, -5.714285714286],",
      "       dtype=torch.float64)",
  };  // #PYTHON repr_with(t, precision=12).split("\n")
  EXPECT_EQ(lines(fp::to_string(varied(4, DType::F64))), expected);
}

TEST_F(Print, Threshold) {
  /*
  #|PYTHON
  t = counting(10, torch.int64)
  */
  {
    const ScopedPrintOptions scope({.threshold = 5});
    EXPECT_EQ(fp::to_string(counting(10, DType::I64)),
              "tensor([0, 1, 2,  ..., 7, 8, 9])");  // #PYTHON repr_with(t, threshold=5)
  }
  {
    const ScopedPrintOptions scope({.threshold = 10});  // not above the threshold: in full
    EXPECT_EQ(fp::to_string(counting(10, DType::I64)),
              "tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])");  // #PYTHON repr_with(t, threshold=10)
  }
}

TEST_F(Print, EdgeItems) {
  /*
  #|PYTHON
  t = counting(100, torch.int64).reshape(10, 10)
  */
  const ScopedPrintOptions scope({.threshold = 20, .edgeitems = 1});
  const Lines expected = {
      "tensor([[ 0,  ...,  9],",
      "        ...,",
      "        [90,  ..., 99]])",
  };  // #PYTHON repr_with(t, threshold=20, edgeitems=1).split("\n")
  EXPECT_EQ(lines(fp::to_string(reshaped(counting(100, DType::I64), {10, 10}))), expected);
}

TEST_F(Print, ZeroEdgeItemsHideEverythingAndShowTheSize) {
  /*
  #|PYTHON
  big = counting(100).reshape(10, 10)
  small = counting(4)
  options = dict(threshold=20, edgeitems=0)
  */
  const ScopedPrintOptions scope({.threshold = 20, .edgeitems = 0});
  EXPECT_EQ(fp::to_string(reshaped(counting(100), {10, 10})),
            "tensor([...], size=(10, 10))");  // #PYTHON repr_with(big, **options)
  EXPECT_EQ(fp::to_string(counting(4)),
            "tensor([0., 1., 2., 3.], size=(4,))");  // #PYTHON repr_with(small, **options)
}

TEST_F(Print, LineWidth) {
  /*
  #|PYTHON
  t = varied(12, torch.float64)
  */
  const ScopedPrintOptions scope({.linewidth = 40});
  const Lines expected = {
      "tensor([-7.1429, -1.8571,  3.4286,", "        -5.7143, -0.4286,  4.8571,",
      "        -4.2857,  1.0000,  6.2857,", "        -2.8571,  2.4286, -6.7143],",
      "       dtype=torch.float64)",
  };  // #PYTHON repr_with(t, linewidth=40).split("\n")
  EXPECT_EQ(lines(fp::to_string(varied(12, DType::F64))), expected);
}

TEST_F(Print, LineWidthOfOneStillPrintsAnElementPerLine) {
  /*
  #|PYTHON
  t = varied(3, torch.float64)
  */
  const ScopedPrintOptions scope({.linewidth = 1});
  const Lines expected = {
      "tensor([-7.1429,",
      "        -1.8571,",
      "         3.4286],",
      "       dtype=torch.float64)",
  };  // #PYTHON repr_with(t, linewidth=1).split("\n")
  EXPECT_EQ(lines(fp::to_string(varied(3, DType::F64))), expected);
}

TEST_F(Print, SciModeForcedOn) {
  /*
  #|PYTHON
  plain = torch.tensor([1.5, 2.0])
  zeros = torch.tensor([0.0, -0.0])
  */
  const ScopedPrintOptions scope({.sci_mode = true});
  EXPECT_EQ(fp::to_string(fp::tensor({1.5f, 2.f})),
            "tensor([1.5000e+00, 2.0000e+00])");  // #PYTHON repr_with(plain, sci_mode=True)
  // Nothing nonzero and finite to measure: Python keeps `0.`.
  EXPECT_EQ(fp::to_string(fp::tensor({0.f, -0.f})),
            "tensor([0., -0.])");  // #PYTHON repr_with(zeros, sci_mode=True)
}

TEST_F(Print, SciModeForcedOff) {
  /*
  #|PYTHON
  t = torch.tensor([1e-8, 1.0, 123.5])
  */
  const ScopedPrintOptions scope({.sci_mode = false});
  EXPECT_EQ(fp::to_string(fp::tensor({1e-8f, 1.f, 123.5f})),
            "tensor([  0.0000,   1.0000, 123.5000])");  // #PYTHON repr_with(t, sci_mode=False)
}

TEST_F(Print, OptionsApplyToComplexParts) {
  /*
  #|PYTHON
  t = torch.tensor([1.25 - 2j, 3 + 0.5j])
  options = dict(precision=1, sci_mode=True)
  */
  using C = std::complex<float>;
  const ScopedPrintOptions scope({.precision = 1, .sci_mode = true});
  EXPECT_EQ(fp::to_string(fp::tensor({C(1.25f, -2.f), C(3.f, 0.5f)})),
            "tensor([1.2e+00-2.0e+00j, 3.0e+00+5.0e-01j])");  // #PYTHON repr_with(t, **options)
}

TEST_F(Print, OptionsChangedOnAnotherThreadApplyWhole) {
  /*
  #|PYTHON
  t = varied(12).reshape(3, 4)
  a = dict(precision=2, threshold=5, edgeitems=1, linewidth=30, sci_mode=True)
  b = dict(precision=6, threshold=1000, edgeitems=3, linewidth=90, sci_mode=False)
  */
  const Lines as_a = {
      "tensor([[-7.14e+00,  ...,", "         -5.71e+00],",  "        ...,",
      "        [ 6.29e+00,  ...,", "         -6.71e+00]])",
  };  // #PYTHON repr_with(t, **a).split("\n")
  const Lines as_b = {
      "tensor([[-7.142857, -1.857143,  3.428571, -5.714286],",
      "        [-0.428571,  4.857143, -4.285714,  1.000000],",
      "        [ 6.285714, -2.857143,  2.428571, -6.714286]])",
  };  // #PYTHON repr_with(t, **b).split("\n")
  const fp::PrintOptions a{
      .precision = 2, .threshold = 5, .edgeitems = 1, .linewidth = 30, .sci_mode = true};
  const fp::PrintOptions b{
      .precision = 6, .threshold = 1000, .edgeitems = 3, .linewidth = 90, .sci_mode = false};
  const ScopedPrintOptions restore(a);
  const Tensor t = reshaped(varied(12), {3, 4});
  std::atomic<bool> done{false};
  std::thread setter([&] {
    for (int i = 0; !done.load(); ++i)
      fp::set_printoptions(i % 2 == 0 ? b : a);
  });
  std::thread reader([&] {
    while (!done.load()) {
      const fp::PrintOptions seen = fp::get_printoptions();
      EXPECT_TRUE(seen == a || seen == b);
    }
  });
  for (int i = 0; i < 100; ++i) {
    const std::string text = fp::to_string(t);
    EXPECT_TRUE(lines(text) == as_a || lines(text) == as_b) << "a mixture of options:\n" << text;
  }
  done = true;
  setter.join();
  reader.join();
}

// --- refused options -----------------------------------------------------------------------

TEST_F(Print, InvalidOptionsAreRefusedAndChangeNothing) {
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::set_printoptions: precision must be in [0, 1000], got -1",
                        fp::set_printoptions({.precision = -1}));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::set_printoptions: precision must be in [0, 1000], got 1001",
                        fp::set_printoptions({.precision = 1001}));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::set_printoptions: threshold must be >= 0, got -1",
                        fp::set_printoptions({.threshold = -1}));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::set_printoptions: edgeitems must be >= 0, got -2",
                        fp::set_printoptions({.edgeitems = -2}));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::set_printoptions: linewidth must be >= 1, got 0",
                        fp::set_printoptions({.linewidth = 0}));
  EXPECT_EQ(fp::get_printoptions(), fp::PrintOptions{});
}

TEST_F(Print, GetPrintOptionsAnswersAfterARefusal) {
  // get_printoptions has no input that could be bad; a refused set leaves it intact.
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "linewidth must be >= 1",
                  fp::set_printoptions({.linewidth = -5}));
  EXPECT_EQ(fp::get_printoptions().linewidth, 80);
}

}  // namespace
