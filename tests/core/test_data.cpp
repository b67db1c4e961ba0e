// Properties and element access: what Python reports, and clear errors for
// every way an access can be wrong.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include "support/expect_error.h"
#include "support/shapes.h"
#include "support/truth.h"

namespace {

using fp_test::truth;

using fp::Tensor;
using fp_test::shape;
using fp_test::strides;

/// torch.arange(24.).reshape(2, 3, 4), as `x` in the Python blocks.
Tensor cube() {
  return fp::arange(24.0).reshape({2, 3, 4});
}

/*
#|PYTHON_GLOBAL
x = torch.arange(24.).reshape(2, 3, 4)
t = x.transpose(0, 2)[1:]
*/

TEST(Properties, MatchPython) {
  const Tensor x = cube();
  const fp::TensorView t = x.transpose(0, 2).i(fp::slice(1, fp::end));
  EXPECT_EQ(t.dim(), 3);                                    // #PYTHON t.dim()
  EXPECT_EQ(shape(t), (std::vector<int64_t>{3, 3, 2}));     // #PYTHON list(t.shape)
  EXPECT_EQ(strides(t), (std::vector<int64_t>{1, 4, 12}));  // #PYTHON list(t.stride())
  EXPECT_EQ(t.size(-1), 2);                                 // #PYTHON t.size(-1)
  EXPECT_EQ(t.stride(-3), 1);                               // #PYTHON t.stride(-3)
  EXPECT_EQ(t.numel(), 18);                                 // #PYTHON t.numel()
  EXPECT_EQ(t.dtype(), fp::DType::F32);                     // #PYTHON t.dtype
  EXPECT_EQ(t.is_contiguous(), false);                      // #PYTHON t.is_contiguous()
  EXPECT_EQ(t.storage_offset(), 1);                         // #PYTHON t.storage_offset()
  EXPECT_EQ(t.element_size(), 4u);                          // #PYTHON t.element_size()
  EXPECT_EQ(t.nbytes(), 72u);                               // #PYTHON t.nbytes
  EXPECT_EQ(t.layout(), fp::Layout::Strided);
  EXPECT_EQ(t.device(), fp::Device::cpu());
  EXPECT_TRUE(t.is_defined());
  EXPECT_FALSE(Tensor().is_defined());
}

TEST(DataAccess, DataAtItemToVector) {
  Tensor x = cube();
  EXPECT_EQ(x.data<float>().size(), 24u);
  EXPECT_EQ(x.data<float>()[5], truth<double>("x.flatten()[5].item()"));
  EXPECT_EQ(x.at<float>({1, -1, 2}), truth<double>("x[1, -1, 2].item()"));
  EXPECT_EQ(x.i(1, 2, 3).item<double>(), truth<double>("x[1, 2, 3].item()"));
  EXPECT_EQ(x.i(0, 0, 1).item<int64_t>(), 1);      // #PYTHON int(x[0, 0, 1].item())
  EXPECT_EQ(fp::tensor(2.7f).item<int32_t>(), 2);  // #PYTHON int(torch.tensor(2.7).item())
  // Read in place (same dtype, on the CPU), at an offset and through strides.
  EXPECT_EQ(x.i(1, 2, 3).item<float>(), truth<double>("x[1, 2, 3].item()"));
  EXPECT_EQ(x.transpose(0, 2).i(3, 2, 1).item<float>(),
            truth<double>("x.transpose(0, 2)[3, 2, 1].item()"));
  EXPECT_EQ(x.i(1).to_vector<float>(), truth<std::vector<float>>("x[1].flatten().tolist()"));
  {
    const fp::TensorView t = x.transpose(0, 2);
    EXPECT_EQ(t.to_vector<float>(),
              truth<std::vector<float>>("x.transpose(0, 2).flatten().tolist()"));
    EXPECT_EQ(t.at<float>({3, 2, 1}), truth<double>("x.transpose(0, 2)[3, 2, 1].item()"));
  }  // the view ends before x is written
  x.data_mut<float>()[0] = 42.f;
  x.at_mut<float>({0, 0, 1}) = -1.f;
  EXPECT_EQ(x.to_vector<float>()[0], 42.f);
  EXPECT_EQ(x.to_vector<float>()[1], -1.f);
}

TEST(DataAccessErrors, DTypeDeviceContiguityAndBounds) {
  Tensor x = cube();
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::BadArgument,
      "data<double>(): the tensor is float32; use data<float>() or convert it with "
      ".to(fp::DType::...)",
      x.data<double>());
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "data_mut<std::int64_t>(): the tensor is float32",
                  x.data_mut<int64_t>());
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::BadArgument,
      "data<float>(): the tensor is not contiguous; use .contiguous() or to_vector<T>()",
      x.transpose(0, 1).data<float>());
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "data<float>(): the tensor is on meta; copy it to the CPU first",
                  fp::zeros({2}, fp::Device::meta()).data<float>());
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "the tensor is float8_e4m3fn",
                  fp::zeros({2}, fp::DType::F8_E4M3FN).data<float>());
  /*
  #|PYTHON
  from truth_helpers import message
  bounds = message(lambda: x[1, 3, 0])
  item = message(lambda: x.item())
  dim = message(lambda: x.size(3))
  no_dims = message(lambda: torch.tensor(1.).size(0))
  */
  const std::string bounds =
      "index 3 is out of bounds for dimension 1 with size 3";  // #PYTHON bounds
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "at<float>(): " + bounds, x.at<float>({1, 3, 0}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "at_mut<float>(): " + bounds,
                  x.at_mut<float>({1, 3, 0}));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "at<float>(): 2 indices for a tensor of 3 dimensions", x.at<float>({1, 2}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "at<double>(): the tensor is float32, not float64",
                  x.at<double>({0, 0, 0}));
  const std::string item =
      "a Tensor with 24 elements cannot be converted to Scalar";  // #PYTHON item
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "item<float>(): " + item, x.item<float>());
  const std::string dim =
      "Dimension out of range (expected to be in range of [-3, 2], but got 3)";  // #PYTHON dim
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "size: " + dim, x.size(3));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "stride: Dimension out of range", x.stride(-4));
  const std::string no_dims =
      "Dimension specified as 0 but tensor has no dimensions";  // #PYTHON no_dims
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "size: " + no_dims, fp::tensor(1.f).size(0));
}

TEST(DataAccessErrors, UndefinedTensors) {
  const Tensor undefined;
  const std::string message = "the tensor is undefined (default-constructed or moved from)";
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "dim: " + message, undefined.dim());
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "strides: " + message, undefined.strides());
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "dtype: " + message, undefined.dtype());
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "device: " + message, undefined.device());
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "layout: " + message, undefined.layout());
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "is_contiguous: " + message,
                  undefined.is_contiguous());
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "storage_offset: " + message,
                  undefined.storage_offset());
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "data: " + message, undefined.data<float>());
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "at: " + message, undefined.at<float>({0}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "item: " + message, undefined.item<float>());
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "to_vector: " + message,
                  undefined.to_vector<float>());
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "sizes: " + message, undefined.size(0));
}

}  // namespace
