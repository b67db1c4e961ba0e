// DType, Half/BFloat16, Device, Layout, MemoryFormat and TensorOptions against Python.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include <cmath>
#include <limits>
#include <sstream>

#include "support/expect_error.h"
#include "support/truth.h"

namespace {

using fp_test::truth;

/*
#|PYTHON_GLOBAL
dtypes = [torch.bool, torch.uint8, torch.uint16, torch.uint32, torch.uint64, torch.int8,
          torch.int16, torch.int32, torch.int64, torch.float16, torch.bfloat16, torch.float32,
          torch.float64, torch.complex32, torch.complex64, torch.complex128, torch.float8_e4m3fn,
          torch.float8_e5m2, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz, torch.float8_e8m0fnu,
          torch.float4_e2m1fn_x2]  # fp::all_dtypes, in order
*/

template <class T>
std::string printed(const T& value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

TEST(DType, NamesAndSizesMatchPython) {
  std::vector<std::string> names;
  std::vector<int64_t> sizes;
  std::vector<bool> floating, complex, is_signed;
  for (fp::DType dtype : fp::all_dtypes) {
    names.push_back(printed(dtype));
    sizes.push_back(static_cast<int64_t>(fp::element_size(dtype)));
    floating.push_back(fp::is_floating_point(dtype));
    complex.push_back(fp::is_complex(dtype));
    is_signed.push_back(fp::is_signed(dtype));
  }
  EXPECT_EQ(names, truth<std::vector<std::string>>("[str(d) for d in dtypes]"));
  EXPECT_EQ(sizes, truth<std::vector<int64_t>>("[d.itemsize for d in dtypes]"));
  EXPECT_EQ(floating, truth<std::vector<bool>>("[d.is_floating_point for d in dtypes]"));
  EXPECT_EQ(complex, truth<std::vector<bool>>("[d.is_complex for d in dtypes]"));
  EXPECT_EQ(is_signed, truth<std::vector<bool>>("[d.is_signed for d in dtypes]"));
}

TEST(DType, ScalarTypeNamesAreLibtorchs) {
  /*
  #|PYTHON
  import re, warnings
  def c10_name(d):
      # libtorch's messages name a dtype as c10::ScalarType does: a cast it
      # refuses into bool, a promotion it refuses, a kernel it lacks.
      tries = [(lambda: torch.empty(1, dtype=d).add_(torch.empty(1, dtype=torch.complex64)),
                r"output type (\w+)$|promote (\w+) and"),
               (lambda: torch.empty(1, dtype=torch.bool).add_(torch.empty(1, dtype=d)),
                r"result type (\w+) can't"),
               (lambda: torch.empty(1, dtype=d).sum(), r"not implemented for '(\w+)'")]
      for attempt, pattern in tries:
          try:
              with warnings.catch_warnings():
                  warnings.simplefilter("ignore")
                  attempt()
          except Exception as e:
              if m := re.search(pattern, str(e).splitlines()[0]):
                  return m.group(1) or m.group(2)
  c10_names = [c10_name(d) for d in dtypes]
  */
  std::vector<std::string> names;
  for (fp::DType dtype : fp::all_dtypes)
    names.emplace_back(fp::scalar_type_name(dtype));
  EXPECT_EQ(names, truth<std::vector<std::string>>("c10_names"));
}

TEST(DType, IntegralIncludesBoolOnlyWhenAsked) {
  EXPECT_TRUE(fp::is_integral(fp::DType::I8));
  EXPECT_FALSE(fp::is_integral(fp::DType::Bool));
  EXPECT_TRUE(fp::is_integral(fp::DType::Bool, /*include_bool=*/true));
  EXPECT_FALSE(fp::is_integral(fp::DType::F16));
  EXPECT_FALSE(fp::is_integral(fp::DType::C64));
}

TEST(DType, EveryDTypeRoundTripsThroughLibtorch) {
  for (fp::DType dtype : fp::all_dtypes) {
    const fp::Tensor t = fp::empty({2}, dtype);
    EXPECT_EQ(t.dtype(), dtype) << fp::name(dtype);
    EXPECT_EQ(t.element_size(), fp::element_size(dtype)) << fp::name(dtype);
  }
}

TEST(DType, ElementTypesMapToDTypes) {
  static_assert(fp::dtype_of<float> == fp::DType::F32);
  static_assert(fp::dtype_of<double> == fp::DType::F64);
  static_assert(fp::dtype_of<fp::Half> == fp::DType::F16);
  static_assert(fp::dtype_of<fp::BFloat16> == fp::DType::BF16);
  static_assert(fp::dtype_of<std::int64_t> == fp::DType::I64);
  static_assert(fp::dtype_of<std::uint8_t> == fp::DType::U8);
  static_assert(fp::dtype_of<bool> == fp::DType::Bool);
  static_assert(fp::dtype_of<std::complex<float>> == fp::DType::C64);
  static_assert(fp::Element<const float>);
  static_assert(!fp::Element<long double>);
}

// Values chosen to hit every rounding case: ties, subnormals, overflow, NaN.
std::vector<float> awkward_floats() {
  return {0.f,
          -0.f,
          1.f,
          -1.5f,
          0.1f,
          1.f / 3.f,
          65504.f,
          65519.f,
          65520.f,
          1e5f,
          -1e5f,
          6.1e-5f,
          5.96e-8f,
          2.98e-8f,
          2.99e-8f,
          1e-10f,
          3.14159265f,
          2049.f,
          2051.f,
          1.00048828125f,
          1.0009765625f,
          3.0e38f,
          -3.4e38f,
          1.17e-38f,
          1.0039062f,
          1.0117188f,
          255.5f,
          std::numeric_limits<float>::infinity(),
          -std::numeric_limits<float>::infinity(),
          std::numeric_limits<float>::quiet_NaN()};
}

TEST(Half, ConvertsFromFloatExactlyAsTorch) {
  /*
  #|PYTHON
  values = [0., -0., 1., -1.5, 0.1, 1/3, 65504., 65519., 65520., 1e5, -1e5, 6.1e-5, 5.96e-8, 2.98e-8,
            2.99e-8, 1e-10, 3.14159265, 2049., 2051., 1.00048828125, 1.0009765625, 3.0e38, -3.4e38,
            1.17e-38, 1.0039062, 1.0117188, 255.5, float("inf"), float("-inf"), float("nan")]
  f32 = torch.tensor(values, dtype=torch.float32)
  bits = f32.to(torch.float16).view(torch.uint16).tolist()
  back = f32.to(torch.float16).to(torch.float32).tolist()
  */
  std::vector<int64_t> bits;
  std::vector<float> back;
  for (float value : awkward_floats()) {
    const fp::Half half(value);
    bits.push_back(half.bits);
    back.push_back(static_cast<float>(half));
  }
  EXPECT_EQ(bits, truth<std::vector<int64_t>>("bits"));
  const std::vector<double> expected = truth<std::vector<double>>("back");
  ASSERT_EQ(back.size(), expected.size());
  for (std::size_t i = 0; i < back.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(back[i]));
    } else {
      EXPECT_EQ(static_cast<double>(back[i]), expected[i]) << i;
    }
  }
}

TEST(BFloat16, ConvertsFromFloatExactlyAsTorch) {
  /*
  #|PYTHON
  values = [0., -0., 1., -1.5, 0.1, 1/3, 65504., 65519., 65520., 1e5, -1e5, 6.1e-5, 5.96e-8, 2.98e-8,
            2.99e-8, 1e-10, 3.14159265, 2049., 2051., 1.00048828125, 1.0009765625, 3.0e38, -3.4e38,
            1.17e-38, 1.0039062, 1.0117188, 255.5, float("inf"), float("-inf"), float("nan")]
  # One value at a time: that is c10::BFloat16's own conversion. (The
  # vectorised tensor conversion writes NaN as 0xffff instead of 0x7fc0.)
  bits = [torch.tensor(v, dtype=torch.float32).to(torch.bfloat16).view(torch.uint16).item() for v in values]
  */
  std::vector<int64_t> bits;
  for (float value : awkward_floats())
    bits.push_back(fp::BFloat16(value).bits);
  EXPECT_EQ(bits, truth<std::vector<int64_t>>("bits"));
}

TEST(Half, DoublesRoundThroughFloatAsTorchDoes) {
  /*
  #|PYTHON
  x = 1.0004882812500001  # just above a half tie: float rounds it onto the tie first
  half_bits = torch.tensor([x], dtype=torch.float64).to(torch.float16).view(torch.uint16).item()
  */
  EXPECT_EQ(fp::Half(1.0004882812500001).bits, 15360);  // #PYTHON half_bits
}

TEST(Half, TensorsOfHalfAreReadAsTorchStoresThem) {
  const fp::Tensor t = fp::tensor({fp::Half(0.1f), fp::Half(-2.f)});
  EXPECT_EQ(t.dtype(), fp::DType::F16);
  EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{static_cast<float>(fp::Half(0.1f)), -2.f}));
  EXPECT_EQ(printed(fp::Half(0.5f)), "0.5");
}

TEST(Device, ParsesAndPrintsLikePython) {
  /*
  #|PYTHON
  names = ["cpu", "cuda", "cuda:1", "meta", "xpu:0", "mps", "cpu:0"]
  printed = [str(torch.device(n)) for n in names]
  */
  std::vector<std::string> out;
  for (const char* name : {"cpu", "cuda", "cuda:1", "meta", "xpu:0", "mps", "cpu:0"}) {
    out.push_back(fp::Device::parse(name).str());
  }
  EXPECT_EQ(out, (std::vector<std::string>{"cpu", "cuda", "cuda:1", "meta", "xpu:0", "mps",
                                           "cpu:0"}));  // #PYTHON printed
  EXPECT_EQ(fp::Device::parse("cuda:1"), fp::Device::cuda(1));
  EXPECT_NE(fp::Device::cuda(0), fp::Device::cuda(1));
  EXPECT_NE(fp::Device::cuda(0), fp::Device::cpu());
  EXPECT_EQ(printed(fp::Device::cuda(2)), "cuda:2");
  EXPECT_TRUE(fp::Device::cuda().is_cuda());
  EXPECT_FALSE(fp::Device::cpu().has_index());
}

TEST(DeviceErrors, UnknownOrMalformedDevices) {
  for (const char* bad :
       {"gpu", "cuda:", "cuda:x", "cuda:-1", "cuda:1:2", "CUDA", "", "cuda:999"}) {
    EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                    "expected a device like \"cpu\", \"cuda\", \"cuda:1\" or \"meta\"",
                    fp::Device::parse(bad));
  }
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "CPU device index must be -1 or zero",
                  fp::Device::parse("cpu:1"));
}

TEST(LayoutAndMemoryFormat, PrintLikePython) {
  /*
  #|PYTHON
  layouts = [str(l) for l in [torch.strided, torch.sparse_coo, torch.sparse_csr]]
  formats = [str(f) for f in [torch.contiguous_format, torch.preserve_format, torch.channels_last, torch.channels_last_3d]]
  */
  EXPECT_EQ((std::vector<std::string>{printed(fp::Layout::Strided), printed(fp::Layout::SparseCoo),
                                      printed(fp::Layout::SparseCsr)}),
            (std::vector<std::string>{"torch.strided", "torch.sparse_coo",
                                      "torch.sparse_csr"}));  // #PYTHON layouts
  EXPECT_EQ(
      (std::vector<std::string>{
          printed(fp::MemoryFormat::Contiguous), printed(fp::MemoryFormat::Preserve),
          printed(fp::MemoryFormat::ChannelsLast), printed(fp::MemoryFormat::ChannelsLast3d)}),
      (std::vector<std::string>{"torch.contiguous_format", "torch.preserve_format",
                                "torch.channels_last",
                                "torch.channels_last_3d"}));  // #PYTHON formats
}

TEST(TensorOptions, ConvertFromADTypeOrADeviceAlone) {
  const fp::TensorOptions from_dtype = fp::DType::I8;
  EXPECT_EQ(from_dtype.dtype(), fp::DType::I8);
  EXPECT_FALSE(from_dtype.device().has_value());
  const fp::TensorOptions from_device = fp::Device::meta();
  EXPECT_EQ(from_device.device(), fp::Device::meta());
  const fp::TensorOptions chained =
      fp::TensorOptions(fp::DType::F16).device(fp::Device::cuda(1)).pinned_memory(true);
  EXPECT_EQ(chained.dtype(), fp::DType::F16);
  EXPECT_EQ(chained.device(), fp::Device::cuda(1));
  EXPECT_TRUE(chained.pinned_memory());
  EXPECT_EQ(chained.dtype_or(fp::DType::F32), fp::DType::F16);
  EXPECT_EQ(fp::TensorOptions().dtype_or(fp::DType::F32), fp::DType::F32);
  EXPECT_EQ(fp::TensorOptions(fp::Layout::Strided).layout(), fp::Layout::Strided);
}

TEST(TensorOptions, MetaTensorsHaveShapeButNoData) {
  const fp::Tensor t = fp::empty({2, 3}, fp::Device::meta());
  EXPECT_EQ(t.device(), fp::Device::meta());
  EXPECT_EQ(t.numel(), 6);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "data<float>(): the tensor is on meta; copy it to the CPU first",
                  t.data<float>());
}

}  // namespace
