// fp::functional convolutions and linear against torch.nn.functional.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

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
using nn_test::shape;
using nn_test::values;

TEST(FunctionalConv, Conv2dWithOptions) {
  /*
  #|PYTHON
  x = torch.randn(1, 4, 5, 6, generator=g(1))
  w = torch.randn(6, 2, 3, 2, generator=g(2))
  b = torch.randn(6, generator=g(3))
  r = F.conv2d(x, w, b, stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2)
  */
  const fp::Tensor x = randn({1, 4, 5, 6}, 1), w = randn({6, 2, 3, 2}, 2), b = randn({6}, 3);
  const fp::Tensor r =
      F::conv2d(x, w, b, {.stride = {2, 1}, .padding = {1, 2}, .dilation = {1, 2}, .groups = 2});
  EXPECT_EQ(shape(r), (std::vector<int64_t>{1, 6, 3, 8}));  // #PYTHON list(r.shape)
  EXPECT_PYTHON(values(r), truth<std::vector<float>>("values(r)"));
}

TEST(FunctionalConv, Conv2dDefaultsAndPaddingStrings) {
  /*
  #|PYTHON
  x = torch.randn(2, 3, 4, 4, generator=g(4))
  w = torch.randn(2, 3, 3, 3, generator=g(5))
  */
  const fp::Tensor x = randn({2, 3, 4, 4}, 4), w = randn({2, 3, 3, 3}, 5);
  EXPECT_PYTHON(values(F::conv2d(x, w)), truth<std::vector<float>>("values(F.conv2d(x, w))"));
  const fp::Tensor same = F::conv2d(x, w, std::nullopt, {.padding = "same"});
  EXPECT_EQ(shape(same), (std::vector<int64_t>{
                             2, 2, 4, 4}));  // #PYTHON list(F.conv2d(x, w, padding="same").shape)
  EXPECT_PYTHON(values(same),
                truth<std::vector<float>>(R"(values(F.conv2d(x, w, padding="same")))"));
  EXPECT_PYTHON(values(F::conv2d(x, w, std::nullopt, {.padding = "valid"})),
                truth<std::vector<float>>(R"(values(F.conv2d(x, w, padding="valid")))"));
}

TEST(FunctionalConv, Conv1dAndConv3d) {
  /*
  #|PYTHON
  x1 = torch.randn(2, 3, 7, generator=g(6))
  w1 = torch.randn(4, 3, 3, generator=g(7))
  b1 = torch.randn(4, generator=g(8))
  x3 = torch.randn(1, 2, 3, 4, 4, generator=g(9))
  w3 = torch.randn(2, 2, 2, 3, 2, generator=g(10))
  */
  const fp::Tensor x1 = randn({2, 3, 7}, 6), w1 = randn({4, 3, 3}, 7), b1 = randn({4}, 8);
  EXPECT_PYTHON(values(F::conv1d(x1, w1, b1, {.stride = 2, .padding = 1})),
                truth<std::vector<float>>("values(F.conv1d(x1, w1, b1, stride=2, padding=1))"));
  const fp::Tensor x3 = randn({1, 2, 3, 4, 4}, 9), w3 = randn({2, 2, 2, 3, 2}, 10);
  const fp::Tensor r3 = F::conv3d(x3, w3, std::nullopt, {.padding = {0, 1, 0}});
  EXPECT_EQ(shape(r3),
            (std::vector<int64_t>{1, 2, 2, 4,
                                  3}));  // #PYTHON list(F.conv3d(x3, w3, padding=(0, 1, 0)).shape)
  EXPECT_PYTHON(values(r3),
                truth<std::vector<float>>("values(F.conv3d(x3, w3, padding=(0, 1, 0)))"));
}

TEST(FunctionalConv, TransposedConvolutions) {
  /*
  #|PYTHON
  x = torch.randn(1, 4, 3, 3, generator=g(11))
  w = torch.randn(4, 1, 3, 2, generator=g(12))
  b = torch.randn(2, generator=g(13))
  r = F.conv_transpose2d(x, w, b, stride=2, padding=(1, 0), output_padding=(1, 0), groups=2)
  x1 = torch.randn(2, 2, 4, generator=g(14))
  w1 = torch.randn(2, 3, 3, generator=g(15))
  r1 = F.conv_transpose1d(x1, w1, stride=3, dilation=2)
  */
  const fp::Tensor x = randn({1, 4, 3, 3}, 11), w = randn({4, 1, 3, 2}, 12), b = randn({2}, 13);
  const fp::Tensor r = F::conv_transpose2d(
      x, w, b, {.stride = 2, .padding = {1, 0}, .output_padding = {1, 0}, .groups = 2});
  EXPECT_EQ(shape(r), (std::vector<int64_t>{1, 2, 6, 6}));  // #PYTHON list(r.shape)
  EXPECT_PYTHON(values(r), truth<std::vector<float>>("values(r)"));
  const fp::Tensor x1 = randn({2, 2, 4}, 14), w1 = randn({2, 3, 3}, 15);
  const fp::Tensor r1 = F::conv_transpose1d(x1, w1, std::nullopt, {.stride = 3, .dilation = 2});
  EXPECT_EQ(shape(r1), (std::vector<int64_t>{2, 3, 14}));  // #PYTHON list(r1.shape)
  EXPECT_PYTHON(values(r1), truth<std::vector<float>>("values(r1)"));
}

TEST(FunctionalConv, Linear) {
  /*
  #|PYTHON
  x = torch.randn(2, 3, 5, generator=g(16))
  w = torch.randn(4, 5, generator=g(17))
  b = torch.randn(4, generator=g(18))
  */
  const fp::Tensor x = randn({2, 3, 5}, 16), w = randn({4, 5}, 17), b = randn({4}, 18);
  EXPECT_PYTHON(values(F::linear(x, w, b)), truth<std::vector<float>>("values(F.linear(x, w, b))"));
  EXPECT_PYTHON(values(F::linear(x, w)), truth<std::vector<float>>("values(F.linear(x, w))"));
  const fp::TensorView transposed = x.transpose(0, 1);
  EXPECT_PYTHON(values(F::linear(transposed, w, b)),
                truth<std::vector<float>>("values(F.linear(x.transpose(0, 1), w, b))"));
}

TEST(FunctionalConv, WrongChannelCountSaysSo) {
  /*
  #|PYTHON
  x = torch.randn(1, 4, 5, 5)
  w = torch.randn(8, 3, 3, 3)
  try:
      F.conv2d(x, w)
  except RuntimeError as e:
      message = str(e)
  try:
      F.linear(torch.randn(2, 3), torch.randn(5, 4))
  except RuntimeError as e:
      linear_message = str(e)
  */
  const fp::Tensor x = randn({1, 4, 5, 5}, 1), w = randn({8, 3, 3, 3}, 2);
  const std::string message =
      "Given groups=1, weight of size [8, 3, 3, 3], expected input[1, 4, 5, 5] to have 3 channels, "
      "but got 4 channels instead";  // #PYTHON message
  EXPECT_TORCH_ERROR("aten::conv2d: " + message, F::conv2d(x, w));
  const fp::Tensor features = randn({2, 3}, 1), weight = randn({5, 4}, 2);
  // libtorch's wording changes between releases (2.15 prefixes "mm: ").
  EXPECT_TORCH_ERROR("aten::linear: " + truth<std::string>("linear_message"),
                     F::linear(features, weight));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "expected a single value or a list of 2 values, got a list of 3",
                  F::conv2d(x, w, std::nullopt, {.stride = {1, 2, 3}}));
}

TEST(FunctionalConv, UnknownPaddingStringIsTorchsError) {
  // The string reaches libtorch, which names the ones it takes.
  FP_SKIP_UNDER_LEAK_CHECKERS_WHERE_TORCH_LEAKS_STRINGS();
  const fp::Tensor x = randn({1, 4, 5, 5}, 1), w = randn({8, 4, 3, 3}, 2);
  EXPECT_TORCH_ERROR("Invalid padding string", F::conv2d(x, w, std::nullopt, {.padding = "full"}));
}

}  // namespace
