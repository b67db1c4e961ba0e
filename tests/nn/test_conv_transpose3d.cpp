// fp::functional::conv_transpose3d, conv_tbc and fp::nn::ConvTranspose3d
// against PyTorch.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include "nn/helpers.h"
#include "support/expect_error.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import torch.nn as nn
import torch.nn.functional as F
from truth_helpers import g, values, filled, run, message
FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
def each_dtype(f, *tensors):
    return [values(f(*(t.to(d) for t in tensors)).double()) for d in FLOATS]
*/

// A named namespace: the unity build compiles this file together with others.
namespace conv_transpose3d_test {

using fp_test::truth;

namespace F = fp::functional;
using nn_test::keys;
using nn_test::randn;
using nn_test::shape;

using Doubles = std::vector<std::vector<double>>;

/// The C++ side of the Python helper `each_dtype`.
template <class Function, class... Tensors>
Doubles each_dtype(Function f, const Tensors&... tensors) {
  Doubles out;
  for (fp::DType dtype : {fp::DType::F32, fp::DType::F64, fp::DType::F16, fp::DType::BF16}) {
    out.push_back(f(tensors.to(dtype)...).template to_vector<double>());
  }
  return out;
}

TEST(ConvTranspose3d, Functional) {
  /*
  #|PYTHON
  x = torch.randn(2, 4, 3, 3, 2, generator=g(1))
  w = torch.randn(4, 2, 2, 3, 2, generator=g(2))
  b = torch.randn(4, generator=g(3))
  def transposed(x, w, b):
      return F.conv_transpose3d(x, w, b, stride=(2, 1, 2), padding=(1, 0, 1),
                                output_padding=(1, 0, 1), groups=2, dilation=(1, 2, 1))
  r = transposed(x, w, b)
  */
  const fp::Tensor x = randn({2, 4, 3, 3, 2}, 1), w = randn({4, 2, 2, 3, 2}, 2), b = randn({4}, 3);
  const auto transposed = [](const fp::TensorView& x, const fp::TensorView& w,
                             const fp::TensorView& b) {
    return F::conv_transpose3d(x, w, b,
                               {.stride = {2, 1, 2},
                                .padding = {1, 0, 1},
                                .output_padding = {1, 0, 1},
                                .groups = 2,
                                .dilation = {1, 2, 1}});
  };
  EXPECT_EQ(shape(transposed(x, w, b)),
            (std::vector<int64_t>{2, 4, 5, 7, 3}));  // #PYTHON list(r.shape)
  EXPECT_PYTHON(each_dtype(transposed, x, w, b), truth<Doubles>("each_dtype(transposed, x, w, b)"));
  // Defaults, no bias; unbatched; not contiguous.
  EXPECT_PYTHON(
      each_dtype([](const fp::Tensor& x, const fp::Tensor& w) { return F::conv_transpose3d(x, w); },
                 x, w.i(fp::all, fp::slice(0, 1))),
      truth<Doubles>("each_dtype(lambda x, w: F.conv_transpose3d(x, w), x, w[:, 0:1])"));
  EXPECT_PYTHON(F::conv_transpose3d(x.i(1), w, b, {.stride = 2, .groups = 2}).to_vector<double>(),
                truth<std::vector<double>>(
                    "values(F.conv_transpose3d(x[1], w, b, stride=2, groups=2).double())"));
  EXPECT_PYTHON(F::conv_transpose3d(x.transpose(2, 4), w, b, {.groups = 2}).to_vector<double>(),
                truth<std::vector<double>>(
                    "values(F.conv_transpose3d(x.transpose(2, 4), w, b, groups=2).double())"));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::conv_transpose3d",
                  F::conv_transpose3d(x, w.i(fp::slice(0, 3))));
}

TEST(ConvTranspose3d, ConvTbc) {
  /*
  #|PYTHON
  x = torch.randn(6, 2, 3, generator=g(4))
  w = torch.randn(3, 3, 4, generator=g(5))
  b = torch.randn(4, generator=g(6))
  */
  const fp::Tensor x = randn({6, 2, 3}, 4), w = randn({3, 3, 4}, 5), b = randn({4}, 6);
  EXPECT_PYTHON(each_dtype([](const fp::Tensor& x, const fp::Tensor& w,
                              const fp::Tensor& b) { return F::conv_tbc(x, w, b); },
                           x, w, b),
                truth<Doubles>("each_dtype(lambda x, w, b: F.conv_tbc(x, w, b), x, w, b)"));
  EXPECT_PYTHON(each_dtype([](const fp::Tensor& x, const fp::Tensor& w,
                              const fp::Tensor& b) { return F::conv_tbc(x, w, b, 2); },
                           x, w, b),
                truth<Doubles>("each_dtype(lambda x, w, b: F.conv_tbc(x, w, b, 2), x, w, b)"));
  // Not contiguous: every other channel, which conv_tbc takes; a time-major view of a
  // batch-first tensor it refuses, as in Python.
  const fp::Tensor wide = randn({6, 2, 6}, 7);
  EXPECT_PYTHON(
      F::conv_tbc(wide.i(fp::all, fp::all, fp::slice(0, fp::end, 2)), w, b, 1).to_vector<double>(),
      truth<std::vector<double>>(
          "values(F.conv_tbc(torch.randn(6, 2, 6, generator=g(7))[:, :, ::2], w, b, "
          "1).double())"));
  EXPECT_TORCH_ERROR("view size is not compatible with input tensor's size and stride",
                     F::conv_tbc(randn({2, 6, 3}, 8).transpose(0, 1), w, b));
  EXPECT_TORCH_ERROR("Input must have 3 dims: time, batch, in_channel", F::conv_tbc(x.i(0), w, b));
  EXPECT_TORCH_ERROR("Bias size must equal dim 2 in the weight tensor (output channels).",
                     F::conv_tbc(x, w, b.i(fp::slice(0, 3))));
  EXPECT_TORCH_ERROR("Input dim 2 (input channels) is not == dim 1 in the weight tensor",
                     F::conv_tbc(x, w.i(fp::all, fp::slice(0, 2)), b));
}

TEST(ConvTranspose3d, Layer) {
  /*
  #|PYTHON
  m = filled(nn.ConvTranspose3d(4, 6, (2, 3, 2), stride=2, padding=(0, 1, 0), groups=2))
  x = torch.randn(1, 4, 3, 2, 3, generator=g(8))
  with torch.no_grad():
      sized = m(x, output_size=[7, 4, 7])
  m1 = filled(nn.ConvTranspose3d(2, 3, 2, output_padding=(0, 1, 0), stride=(1, 2, 1),
                                 dilation=(2, 1, 1), bias=False))
  x1 = torch.randn(2, 3, 2, 4, generator=g(9))
  too_large = message(lambda: m(x, output_size=[9, 4, 7]))
  */
  fp::nn::ConvTranspose3d m(4, 6, {2, 3, 2}, {.stride = 2, .padding = {0, 1, 0}, .groups = 2});
  const fp::Tensor x = randn({1, 4, 3, 2, 3}, 8);
  EXPECT_EQ(keys(m),
            (std::vector<std::string>{"weight", "bias"}));  // #PYTHON list(m.state_dict().keys())
  EXPECT_EQ(shape(m.weight),
            (std::vector<int64_t>{4, 3, 2, 3, 2}));  // #PYTHON list(m.weight.shape)
  EXPECT_EQ(m.type_name(), "ConvTranspose3d");       // #PYTHON type(m).__name__
  m.load_state_dict(nn_test::filled(m));
  EXPECT_PYTHON(nn_test::values(m(x)), truth<std::vector<float>>("run(m, x)"));
  const fp::Tensor sized = m.forward(x, {7, 4, 7});
  EXPECT_EQ(shape(sized), (std::vector<int64_t>{1, 6, 7, 4, 7}));  // #PYTHON list(sized.shape)
  EXPECT_PYTHON(nn_test::values(sized), truth<std::vector<float>>("values(sized)"));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::nn::ConvTranspose3d: " + truth<std::string>("too_large"),
                        m.forward(x, {9, 4, 7}));
  fp::nn::ConvTranspose3d m1(
      2, 3, 2,
      {.stride = {1, 2, 1}, .output_padding = {0, 1, 0}, .bias = false, .dilation = {2, 1, 1}});
  EXPECT_EQ(keys(m1),
            (std::vector<std::string>{"weight"}));  // #PYTHON list(m1.state_dict().keys())
  m1.load_state_dict(nn_test::filled(m1));
  // Unbatched.
  EXPECT_PYTHON(nn_test::values(m1(randn({2, 3, 2, 4}, 9))),
                truth<std::vector<float>>("run(m1, x1)"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::ConvTranspose3d: Only \"zeros\" padding mode is supported for "
                  "ConvTranspose3d",
                  fp::nn::ConvTranspose3d(4, 4, 3, {.padding_mode = "circular"}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::ConvTranspose3d: out_channels must be divisible by groups",
                  fp::nn::ConvTranspose3d(4, 3, 3, {.groups = 2}));
}

}  // namespace conv_transpose3d_test
