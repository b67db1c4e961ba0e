// empty, zeros, ones, full, arange, linspace, eye and the *_like forms.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include <bit>
#include <functional>
#include <limits>
#include <string>

#include "support/expect_error.h"
#include "support/shapes.h"
#include "support/truth.h"

namespace {

using fp_test::shape;
using fp_test::truth;

TEST(Factory, EmptyZerosOnesWithOptions) {
  /*
  #|PYTHON
  e = torch.empty(5, 5)
  z = torch.zeros(6, 6, dtype=torch.uint8)
  o = torch.ones(2, 3, dtype=torch.float16)
  */
  const fp::Tensor e = fp::empty({5, 5});
  EXPECT_EQ(shape(e), (std::vector<int64_t>{5, 5}));  // #PYTHON list(e.shape)
  EXPECT_EQ(e.dtype(), fp::DType::F32);               // #PYTHON e.dtype
  EXPECT_EQ(e.device(), fp::Device::cpu());
  const fp::Tensor z = fp::zeros({6, 6}, fp::DType::U8);
  EXPECT_EQ(z.dtype(), fp::DType::U8);  // #PYTHON z.dtype
  EXPECT_EQ(z.to_vector<uint8_t>(), std::vector<uint8_t>(36, 0));
  const fp::Tensor o = fp::ones({2, 3}, fp::DType::F16);
  EXPECT_EQ(o.to_vector<float>(), truth<std::vector<float>>("o.flatten().tolist()"));
  EXPECT_EQ(fp::zeros(4).numel(), 4);
  EXPECT_EQ(fp::zeros({}).dim(), 0);
}

TEST(Factory, FullInfersTheDTypeLikePython) {
  /*
  #|PYTHON
  i = torch.full((2,), 3)
  f = torch.full((2,), 3.5)
  b = torch.full((2,), True)
  big = torch.full((1,), 2**62 + 1)
  cast = torch.full((2,), 2.7, dtype=torch.int32)
  */
  EXPECT_EQ(fp::full({2}, 3).dtype(), fp::DType::I64);    // #PYTHON i.dtype
  EXPECT_EQ(fp::full({2}, 3.5).dtype(), fp::DType::F32);  // #PYTHON f.dtype
  EXPECT_EQ(fp::full({2}, 3.5).to_vector<float>(), truth<std::vector<float>>("f.tolist()"));
  EXPECT_EQ(fp::full({2}, true).dtype(), fp::DType::Bool);  // #PYTHON b.dtype
  EXPECT_EQ(fp::full({1}, (int64_t{1} << 62) + 1).item<int64_t>(),
            4611686018427387905);  // #PYTHON big.item()
  EXPECT_EQ(fp::full({2}, 2.7, fp::DType::I32).to_vector<int32_t>(),
            (std::vector<int32_t>{2, 2}));  // #PYTHON cast.tolist()
}

TEST(Factory, ArangeIntegerAndFloatingForms) {
  /*
  #|PYTHON
  a = torch.arange(5)
  b = torch.arange(1, 10, 3)
  c = torch.arange(0, 1, 0.1)
  d = torch.arange(10, 0, -2.5)
  e = torch.arange(-3.7, 5.2, 0.3)
  f = torch.arange(0.5, 3.5, dtype=torch.int64)
  g = torch.arange(0, 2, 0.25, dtype=torch.float16)
  h = torch.arange(5, dtype=torch.float64)
  */
  EXPECT_EQ(fp::arange(5).to_vector<int64_t>(),
            (std::vector<int64_t>{0, 1, 2, 3, 4}));  // #PYTHON a.tolist()
  EXPECT_EQ(fp::arange(5).dtype(), fp::DType::I64);  // #PYTHON a.dtype
  EXPECT_EQ(fp::arange(1, 10, 3).to_vector<int64_t>(),
            (std::vector<int64_t>{1, 4, 7}));  // #PYTHON b.tolist()
  EXPECT_EQ(fp::arange(0, 1, 0.1).to_vector<float>(), truth<std::vector<float>>("c.tolist()"));
  EXPECT_EQ(fp::arange(0, 1, 0.1).dtype(), fp::DType::F32);  // #PYTHON c.dtype
  EXPECT_EQ(fp::arange(10, 0, -2.5).to_vector<float>(), truth<std::vector<float>>("d.tolist()"));
  EXPECT_EQ(fp::arange(-3.7, 5.2, 0.3).to_vector<float>(), truth<std::vector<float>>("e.tolist()"));
  EXPECT_EQ(fp::arange(0.5, 3.5, 1, fp::DType::I64).to_vector<int64_t>(),
            (std::vector<int64_t>{0, 1, 2}));  // #PYTHON f.tolist()
  EXPECT_EQ(fp::arange(0, 2, 0.25, fp::DType::F16).to_vector<float>(),
            truth<std::vector<float>>("g.tolist()"));
  EXPECT_EQ(fp::arange(5, fp::DType::F64).to_vector<double>(),
            truth<std::vector<double>>("h.tolist()"));
}

TEST(Factory, ArangeOfIntegersFromFractionalNumbersCountsLikeTheLoadedTorch) {
  // int64 results: up to torch 2.13 the size is counted from the truncated
  // numbers; from 2.14 on only when all three are integers, else in double.
  /*
  #|PYTHON
  a = torch.arange(0.5, 3.6, 1, dtype=torch.int64)
  b = torch.arange(0, 10, 3.5, dtype=torch.int64)
  c = torch.arange(10, 0, -3.5, dtype=torch.int64)
  d = torch.arange(0.5, 3.6, 1, dtype=torch.int32)
  e = torch.arange(0.2, 5.9, 1.7, dtype=torch.int16)
  */
  EXPECT_EQ(fp::arange(0.5, 3.6, 1, fp::DType::I64).to_vector<int64_t>(),
            truth<std::vector<int64_t>>("a.tolist()"));
  EXPECT_EQ(fp::arange(0, 10, 3.5, fp::DType::I64).to_vector<int64_t>(),
            truth<std::vector<int64_t>>("b.tolist()"));
  EXPECT_EQ(fp::arange(10, 0, -3.5, fp::DType::I64).to_vector<int64_t>(),
            truth<std::vector<int64_t>>("c.tolist()"));
  EXPECT_EQ(fp::arange(0.5, 3.6, 1, fp::DType::I32).to_vector<int64_t>(),
            (std::vector<int64_t>{0, 1, 2, 3}));  // #PYTHON d.tolist()
  EXPECT_EQ(fp::arange(0.2, 5.9, 1.7, fp::DType::I16).to_vector<int64_t>(),
            (std::vector<int64_t>{0, 1, 2, 3}));  // #PYTHON e.tolist()
}

TEST(Factory, LinspaceAndEye) {
  /*
  #|PYTHON
  l = torch.linspace(-1, 1, 7)
  l64 = torch.linspace(0, 1, 11, dtype=torch.float64)
  e = torch.eye(3)
  r = torch.eye(2, 3, dtype=torch.int32)
  */
  EXPECT_EQ(fp::linspace(-1, 1, 7).to_vector<float>(), truth<std::vector<float>>("l.tolist()"));
  EXPECT_EQ(fp::linspace(0, 1, 11, fp::DType::F64).to_vector<double>(),
            truth<std::vector<double>>("l64.tolist()"));
  EXPECT_EQ(fp::eye(3).to_vector<float>(), truth<std::vector<float>>("e.flatten().tolist()"));
  EXPECT_EQ(fp::eye(2, 3, fp::DType::I32).to_vector<int32_t>(),
            (std::vector<int32_t>{1, 0, 0, 0, 1, 0}));            // #PYTHON r.flatten().tolist()
  EXPECT_EQ(shape(fp::eye(2, 3)), (std::vector<int64_t>{2, 3}));  // #PYTHON list(r.shape)
}

TEST(Factory, LikeFormsFollowTheSource) {
  const fp::Tensor source = fp::zeros({2, 2}, fp::DType::I16);
  EXPECT_EQ(fp::ones_like(source).dtype(), fp::DType::I16);
  EXPECT_EQ(fp::ones_like(source).to_vector<int16_t>(), (std::vector<int16_t>{1, 1, 1, 1}));
  EXPECT_EQ(fp::zeros_like(source, fp::DType::F64).dtype(), fp::DType::F64);
  EXPECT_EQ(shape(fp::empty_like(source)), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(fp::full_like(source, 7).to_vector<int16_t>(), (std::vector<int16_t>{7, 7, 7, 7}));
  EXPECT_EQ(fp::full_like(source, 2.5, fp::DType::F32).to_vector<float>(),
            (std::vector<float>{2.5, 2.5, 2.5, 2.5}));
}

TEST(Factory, MetaAndCudaDevices) {
  EXPECT_EQ(fp::zeros({3}, fp::Device::meta()).device(), fp::Device::meta());
  EXPECT_EQ(fp::arange(3, fp::TensorOptions(fp::Device::meta())).device(), fp::Device::meta());
  if (!fp::cuda_is_available()) GTEST_SKIP() << "no CUDA device here";
  const fp::Tensor on_gpu = fp::ones({2}, fp::Device::cuda());
  EXPECT_TRUE(on_gpu.device().is_cuda());
  EXPECT_EQ(on_gpu.to_vector<float>(), (std::vector<float>{1, 1}));
}

TEST(FactoryErrors, NegativeSizesAndBadRanges) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::empty: Trying to create tensor with negative dimension -1", fp::empty({-1}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::zeros: Trying to create tensor with negative dimension -2",
                  fp::zeros({2, -2}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::ones: Trying to create tensor with negative dimension -1", fp::ones({-1}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::full: Trying to create tensor with negative dimension -1",
                  fp::full({-1}, 1));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::arange: step must be nonzero",
                  fp::arange(0, 5, 0));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::arange: upper bound and lower bound inconsistent with step sign",
                  fp::arange(0, 5, -1));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::arange: unsupported range: 0 -> inf",
                  fp::arange(0.0, std::numeric_limits<double>::infinity()));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::linspace: number of steps must be non-negative",
                  fp::linspace(0, 1, -1));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::eye: n must be greater or equal to 0, got -1",
                  fp::eye(-1));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::eye: m must be greater or equal to 0, got -3",
                  fp::eye(2, -3));
}

/// torch.arange's outcome for these arguments: its message (first line), or
/// "" when it makes a tensor, which then has `size` elements.
void expect_arange_like_torch(const std::string& message, std::int64_t size,
                              const std::function<fp::Tensor()>& make) {
  if (message.empty()) {
    EXPECT_EQ(make().numel(), size);
  } else {
    EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::arange: " + message, make());
  }
}

TEST(FactoryErrors, ArangeRefusesWhatTheLoadedTorchRefuses) {
  /*
  #|PYTHON
  def outcome(*args, **kwargs):
      try:
          return "", torch.arange(*args, **kwargs).numel()
      except Exception as e:
          return str(e).splitlines()[0], 0
  def message(*args, **kwargs):
      return outcome(*args, **kwargs)[0]
  def size(*args, **kwargs):
      return outcome(*args, **kwargs)[1]
  inf = float("inf")
  nan = float("nan")
  # torch 2.11 and 2.12 divide by the truncated step and die of SIGFPE.
  divides_by_zero = tuple(int(part) for part in torch.__version__.split(".")[:2]) < (2, 13)
  */
  constexpr double inf = std::numeric_limits<double>::infinity();
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  // The dtypes arange_cpu does not dispatch.
  const std::string uint16 =
      "\"arange_cpu\" not implemented for 'UInt16'";  // #PYTHON message(5, dtype=torch.uint16)
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::arange: " + uint16,
                  fp::arange(5, fp::DType::U16));
  const std::string boolean =
      "\"arange_cpu\" not implemented for 'Bool'";  // #PYTHON message(5, dtype=torch.bool)
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::arange: " + boolean,
                  fp::arange(5, fp::DType::Bool));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::arange: " + truth<std::string>("message(5, dtype=torch.complex64)"),
                  fp::arange(5, fp::DType::C64));
  // Steps torch's releases treat differently: 2.15 refuses a step that is not finite.
  expect_arange_like_torch(truth<std::string>("message(0, 1, inf)"),
                           truth<std::int64_t>("size(0, 1, inf)"),
                           [&] { return fp::arange(0.0, 1.0, inf); });
  expect_arange_like_torch(truth<std::string>("message(0, 1, nan)"), 0,
                           [&] { return fp::arange(0.0, 1.0, nan); });
  // Numbers the accumulation type cannot hold.
  expect_arange_like_torch(truth<std::string>("message(0, 1e300, 1, dtype=torch.int64)"), 0,
                           [] { return fp::arange(0, 1e300, 1, fp::DType::I64); });
  expect_arange_like_torch(truth<std::string>("message(1e39, 1e39, 1, dtype=torch.float16)"), 0,
                           [] { return fp::arange(1e39, 1e39, 1, fp::DType::F16); });
  // An int64 step that truncates to 0: refused by 2.13, ten zeros from 2.14 on.
  if (!truth<bool>("divides_by_zero")) {
    expect_arange_like_torch(
        truth<std::string>(R"("" if divides_by_zero else message(0, 5, 0.5, dtype=torch.int64))"),
        truth<std::int64_t>("0 if divides_by_zero else size(0, 5, 0.5, dtype=torch.int64)"),
        [] { return fp::arange(0, 5, 0.5, fp::DType::I64); });
  }
}

TEST(FactoryErrors, UndefinedSources) {
  const fp::Tensor undefined;
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expects Tensor, got a null tensor handle",
                  fp::zeros_like(undefined));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expects Tensor, got a null tensor handle",
                  fp::ones_like(undefined));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expects Tensor, got a null tensor handle",
                  fp::empty_like(undefined));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expects Tensor, got a null tensor handle",
                  fp::full_like(undefined, 1));
}

TEST(FactoryErrors, FullRejectsValuesTheDTypeCannotHoldLikePython) {
  /*
  #|PYTHON
  def message(value, dtype):
      try:
          torch.full((2,), value, dtype=dtype)
      except RuntimeError as e:
          return str(e)
      return "no error"
  */
  const std::string message1 =
      "value cannot be converted to type c10::Half without overflow";  // #PYTHON message(1e300, torch.float16)
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::full: " + message1,
                  fp::full({2}, 1e300, fp::DType::F16));
  const std::string message2 =
      "value cannot be converted to type c10::Half without overflow";  // #PYTHON message(70000, torch.float16)
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::full: " + message2,
                  fp::full({2}, 70000, fp::DType::F16));
  const std::string message3 =
      "value cannot be converted to type float without overflow";  // #PYTHON message(1e300, torch.float32)
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::full: " + message3,
                  fp::full({2}, 1e300, fp::DType::F32));
  const std::string message4 =
      "value cannot be converted to type uint8_t without overflow";  // #PYTHON message(300, torch.uint8)
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::full: " + message4,
                  fp::full({2}, 300, fp::DType::U8));
  const std::string message5 =
      "value cannot be converted to type int without overflow";  // #PYTHON message(2e10, torch.int32)
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::full: " + message5,
                  fp::full({2}, 2.0e10, fp::DType::I32));
  const std::string message6 =
      "value cannot be converted to type int64_t without overflow";  // #PYTHON message(float("nan"), torch.int64)
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::full: " + message6,
                  fp::full({2}, std::numeric_limits<double>::quiet_NaN(), fp::DType::I64));
  const std::string message7 =
      "value cannot be converted to type c10::Float8_e4m3fn without overflow";  // #PYTHON message(float("inf"), torch.float8_e4m3fn)
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::full: " + message7,
                  fp::full({2}, std::numeric_limits<double>::infinity(), fp::DType::F8_E4M3FN));
  const std::string message8 =
      "value cannot be converted to type int8_t without overflow";  // #PYTHON message(200, torch.int8)
  const fp::Tensor int8_source = fp::zeros({2}, fp::DType::I8);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::full_like: " + message8,
                  fp::full_like(int8_source, 200));
}

TEST(Factory, FullAcceptsWhatPythonAccepts) {
  /*
  #|PYTHON
  wrapped = torch.full((2,), -1, dtype=torch.uint8)
  infinite = torch.full((2,), float("inf"), dtype=torch.float16)
  truncated = torch.full((2,), -2.9, dtype=torch.int8)
  */
  EXPECT_EQ(fp::full({2}, -1, fp::DType::U8).to_vector<uint8_t>(),
            (std::vector<uint8_t>{255, 255}));  // #PYTHON wrapped.tolist()
  EXPECT_EQ(
      fp::full({2}, std::numeric_limits<double>::infinity(), fp::DType::F16).to_vector<double>(),
      truth<std::vector<double>>("infinite.tolist()"));
  EXPECT_EQ(fp::full({2}, -2.9, fp::DType::I8).to_vector<int8_t>(),
            (std::vector<int8_t>{-2, -2}));  // #PYTHON truncated.tolist()
}

/// The bits of every element, summed: equal sums (with the sampled values)
/// show two large float tensors agree bit for bit without listing them all.
/// The sum wraps around like torch's int64 `sum()` (unsigned arithmetic: a
/// signed overflow would be undefined behaviour).
template <class Bits, class T>
int64_t bit_checksum(const std::vector<T>& values) {
  uint64_t sum = 0;
  for (const T& value : values)
    sum += static_cast<uint64_t>(static_cast<int64_t>(std::bit_cast<Bits>(value)));
  return static_cast<int64_t>(sum);
}

TEST(Factory, LargeAranges) {
  // Past 32768 elements libtorch fills arange in parallel chunks, each with
  // its own vectorised blocks; every value must still match bit for bit.
  /*
  #|PYTHON
  def checksum(t, bits):
      return t.view(bits).to(torch.int64).sum().item()
  f32 = torch.arange(-3.0, 7.0, 0.0001)
  f64 = torch.arange(0.1, 9.7, 0.0003, dtype=torch.float64)
  f16 = torch.arange(0, 1000, 0.01, dtype=torch.float16)
  u8 = torch.arange(0, 300, dtype=torch.uint8)
  */
  const fp::Tensor f32 = fp::arange(-3.0, 7.0, 0.0001);
  EXPECT_EQ(f32.numel(), 100000);  // #PYTHON f32.numel()
  EXPECT_EQ(bit_checksum<int32_t>(f32.to_vector<float>()),
            truth<std::int64_t>("checksum(f32, torch.int32)"));
  const fp::Tensor f64 = fp::arange(0.1, 9.7, 0.0003, fp::DType::F64);
  EXPECT_EQ(f64.numel(), 32000);  // #PYTHON f64.numel()
  EXPECT_EQ(bit_checksum<int64_t>(f64.to_vector<double>()),
            truth<std::int64_t>("checksum(f64, torch.int64)"));
  const fp::Tensor f16 = fp::arange(0, 1000, 0.01, fp::DType::F16);
  std::vector<int16_t> f16_bits;
  for (float value : f16.to_vector<float>())
    f16_bits.push_back(static_cast<int16_t>(fp::Half(value).bits));
  EXPECT_EQ(f16.numel(), 100000);  // #PYTHON f16.numel()
  // The float16 rounding differs between vectorised kernels (AVX2 vs AVX-512).
  EXPECT_EQ(bit_checksum<int16_t>(f16_bits), truth<std::int64_t>("checksum(f16, torch.int16)"));
  const fp::Tensor u8 = fp::arange(0, 300, 1, fp::DType::U8);
  EXPECT_EQ(u8.to_vector<uint8_t>()[299], 43);  // #PYTHON u8[299].item()
}

}  // namespace
