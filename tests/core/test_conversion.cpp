// fp::tensor(...) like torch.tensor(...), fp::from_blob, and reading values back.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include <array>
#include <limits>

#include "support/expect_error.h"
#include "support/shapes.h"
#include "support/truth.h"

namespace {

using fp_test::shape;
using fp_test::truth;

TEST(Conversion, ScalarsBecomeZeroDimTensorsOfTheirCppType) {
  /*
  #|PYTHON
  d = torch.tensor(5)
  */
  const fp::Tensor d = fp::tensor(int64_t{5});
  EXPECT_EQ(d.dim(), 0);                 // #PYTHON d.dim()
  EXPECT_EQ(d.dtype(), fp::DType::I64);  // #PYTHON d.dtype
  EXPECT_EQ(d.item<int64_t>(), 5);       // #PYTHON d.item()
  EXPECT_EQ(fp::tensor(5).dtype(), fp::DType::I32);
  EXPECT_EQ(fp::tensor(2.5).dtype(), fp::DType::F64);
  EXPECT_EQ(fp::tensor(2.5f).dtype(), fp::DType::F32);
  EXPECT_EQ(fp::tensor(true).dtype(), fp::DType::Bool);
  EXPECT_EQ(fp::tensor(uint8_t{200}).item<int64_t>(), 200);
  EXPECT_EQ(fp::tensor(std::complex<float>(1.f, -2.f)).dtype(), fp::DType::C64);
  EXPECT_EQ(fp::tensor(fp::BFloat16(1.5f)).dtype(), fp::DType::BF16);
}

TEST(Conversion, NestedListsLikeTheSeed) {
  /*
  #|PYTHON
  d = torch.tensor([[5.0, 3.0, 5.0], [1.0, 2.0, 0.0]])
  */
  const fp::Tensor d = fp::tensor({{5.0f, 3.0f, 5.0f}, {1.0f, 2.0f, 0.0f}});
  EXPECT_EQ(shape(d), (std::vector<int64_t>{2, 3}));  // #PYTHON list(d.shape)
  EXPECT_EQ(d.dtype(), fp::DType::F32);               // #PYTHON d.dtype
  EXPECT_EQ(d.to_vector<float>(), truth<std::vector<float>>("d.flatten().tolist()"));
}

TEST(Conversion, SeedMultiplication) {
  /*
  #|PYTHON
  t = torch.tensor([0.2015, -0.4255, 2.6087])
  r = t * torch.tensor(100.0)
  */
  const fp::Tensor t = fp::tensor({0.2015f, -0.4255f, 2.6087f});
  const fp::Tensor r = fp::dispatch<fp::Tensor>("aten::mul", "Tensor", t, fp::tensor(100.0f));
  EXPECT_EQ(shape(r), (std::vector<int64_t>{3}));  // #PYTHON list(r.shape)
  EXPECT_EQ(r.to_vector<float>(), truth<std::vector<float>>("r.tolist()"));
}

TEST(Conversion, UpToFourDimensions) {
  /*
  #|PYTHON
  three = torch.tensor([[[1, 2]], [[3, 4]]], dtype=torch.int16)
  four = torch.tensor([[[[True]], [[False]]]])
  */
  const fp::Tensor three = fp::tensor({{{int16_t{1}, int16_t{2}}}, {{int16_t{3}, int16_t{4}}}});
  EXPECT_EQ(shape(three), (std::vector<int64_t>{2, 1, 2}));  // #PYTHON list(three.shape)
  EXPECT_EQ(three.dtype(), fp::DType::I16);                  // #PYTHON three.dtype
  const fp::Tensor four = fp::tensor({{{{true}}, {{false}}}});
  EXPECT_EQ(shape(four), (std::vector<int64_t>{1, 2, 1, 1}));  // #PYTHON list(four.shape)
  EXPECT_EQ(four.to_vector<bool>(),
            (std::vector<bool>{true, false}));  // #PYTHON four.flatten().tolist()
}

TEST(Conversion, VectorsSpansAndArrays) {
  const std::vector<double> values{1.5, -2.0};
  EXPECT_EQ(fp::tensor(values).to_vector<double>(), values);
  const std::array<int32_t, 3> array{7, 8, 9};
  EXPECT_EQ(fp::tensor(std::span<const int32_t>(array)).to_vector<int32_t>(),
            (std::vector<int32_t>{7, 8, 9}));
  EXPECT_EQ(fp::tensor(std::vector<bool>{true, false, true}).dtype(), fp::DType::Bool);
  const fp::Tensor empty = fp::tensor(std::vector<float>{});
  EXPECT_EQ(shape(empty), (std::vector<int64_t>{0}));
}

TEST(Conversion, ExplicitDTypeConvertsLikePython) {
  /*
  #|PYTHON
  a = torch.tensor([1.7, -2.7, 255.0], dtype=torch.int16)
  wrapped = torch.tensor([-1, 200], dtype=torch.uint8)
  b = torch.tensor([1.0, 2.0], dtype=torch.float32)
  c = torch.tensor(3, dtype=torch.float16)
  h = torch.tensor([65519.0, 65520.0, 1e300], dtype=torch.float16)
  */
  const fp::Tensor a = fp::tensor({1.7, -2.7, 255.0}, fp::DType::I16);
  EXPECT_EQ(a.to_vector<int16_t>(), (std::vector<int16_t>{1, -2, 255}));  // #PYTHON a.tolist()
  const fp::Tensor wrapped = fp::tensor({int64_t{-1}, int64_t{200}}, fp::DType::U8);
  EXPECT_EQ(wrapped.to_vector<uint8_t>(),
            (std::vector<uint8_t>{255, 200}));  // #PYTHON wrapped.tolist()
  const fp::Tensor b = fp::tensor({1.0, 2.0}, fp::DType::F32);
  EXPECT_EQ(b.dtype(), fp::DType::F32);  // #PYTHON b.dtype
  const fp::Tensor c = fp::tensor(3, fp::DType::F16);
  EXPECT_EQ(c.item<float>(), truth<double>("c.item()"));
  EXPECT_EQ(c.dtype(), fp::DType::F16);  // #PYTHON c.dtype
  const fp::Tensor h = fp::tensor({65519.0, 65520.0, 1e300}, fp::DType::F16);
  EXPECT_EQ(h.to_vector<double>(), truth<std::vector<double>>("h.tolist()"));
}

TEST(ConversionErrors, IntegerTargetsRejectValuesTheyCannotHold) {
  /*
  #|PYTHON
  def message(values, dtype):
      try:
          torch.tensor(values, dtype=dtype)
      except (RuntimeError, TypeError) as e:
          return str(e)
  */
  const std::string uint8_overflow =
      "value cannot be converted to type uint8 without overflow";  // #PYTHON message([1.7, -2.7], torch.uint8)
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::tensor: " + uint8_overflow,
                  fp::tensor({1.7, -2.7}, fp::DType::U8));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::tensor: " + uint8_overflow,
                  fp::tensor({int64_t{300}}, fp::DType::U8));
  const std::string int8_overflow =
      "value cannot be converted to type int8 without overflow";  // #PYTHON message([-129], torch.int8)
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::tensor: " + int8_overflow,
                  fp::tensor({int64_t{-129}}, fp::DType::I8));
  const std::string nan_overflow =
      "value cannot be converted to type int32 without overflow";  // #PYTHON message([float("nan")], torch.int32)
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::tensor: " + nan_overflow,
                  fp::tensor({std::numeric_limits<double>::quiet_NaN()}, fp::DType::I32));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::tensor: value cannot be converted to type uint64 without overflow",
                  fp::tensor({int64_t{-1}}, fp::DType::U64));
  const std::string complex =
      "must be real number, not complex";  // #PYTHON message([1+2j], torch.float32)
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::tensor: " + complex,
                  fp::tensor(std::complex<double>(1, 2), fp::DType::F32));
}

TEST(ConversionErrors, RaggedListsAreRejected) {
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::BadArgument,
      "fp::tensor: the nested lists are ragged: expected a list of length 2 at depth 1, got 1",
      fp::tensor({{1.f, 2.f}, {3.f}}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "ragged", fp::tensor({{{1, 2}}, {{3}}}));
}

TEST(FromBlob, ViewsUserMemoryWithoutCopying) {
  std::vector<float> buffer{1, 2, 3, 4, 5, 6};
  fp::TensorMutView view = fp::from_blob(std::span<float>(buffer), {2, 3});
  EXPECT_EQ(view.at<float>({1, 0}), 4.f);
  view.at_mut<float>({0, 1}) = 20.f;
  EXPECT_EQ(buffer[1], 20.f);
  buffer[5] = 60.f;
  EXPECT_EQ(view.at<float>({1, 2}), 60.f);
}

TEST(FromBlob, StridedAndReadOnly) {
  /*
  #|PYTHON
  columns = torch.arange(8).as_strided((3, 2), (2, 3))
  */
  const std::vector<int64_t> values{0, 1, 2, 3, 4, 5, 6, 7};
  const fp::TensorView columns = fp::from_blob(std::span<const int64_t>(values), {3, 2}, {2, 3});
  EXPECT_EQ(columns.is_contiguous(), false);  // #PYTHON columns.is_contiguous()
  EXPECT_EQ(columns.to_vector<int64_t>(),
            (std::vector<int64_t>{0, 3, 2, 5, 4, 7}));  // #PYTHON columns.flatten().tolist()
}

TEST(FromBlobErrors, SizesThatReachPastTheBuffer) {
  std::vector<float> buffer(6);
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::BadArgument,
      "fp::from_blob: the sizes and strides reach 28 bytes but the buffer holds 24",
      fp::from_blob(std::span<float>(buffer), {7}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "reach 32 bytes",
                  fp::from_blob(std::span<float>(buffer), {2, 3}, {5, 1}));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument, "fp::from_blob: 2 sizes but 1 strides",
                        fp::from_blob(std::span<float>(buffer), {2, 3}, {1}));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument, "fp::from_blob: negative size -1",
                        fp::from_blob(std::span<float>(buffer), {-1}));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument, "fp::from_blob: negative stride -1",
                        fp::from_blob(std::span<float>(buffer), {2}, {-1}));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument, "overflow",
      fp::from_blob(std::span<float>(buffer), {2, 2}, {int64_t{1} << 62, int64_t{1} << 62}));
  // Zero elements read nothing, whatever the strides.
  EXPECT_NO_THROW(fp::from_blob(std::span<float>(buffer), {0, 100}));
}

}  // namespace
