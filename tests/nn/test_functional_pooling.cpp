// fp::functional pooling against torch.nn.functional.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include "nn/helpers.h"
#include "support/expect_error.h"
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

TEST(FunctionalPooling, MaxPool2d) {
  /*
  #|PYTHON
  x = torch.randn(1, 2, 5, 6, generator=g(1))
  plain = F.max_pool2d(x, 2)
  v, i = F.max_pool2d(x, 3, stride=(2, 1), padding=1, dilation=(1, 2), ceil_mode=True, return_indices=True)
  */
  const fp::Tensor x = randn({1, 2, 5, 6}, 1);
  const fp::Tensor plain = F::max_pool2d(x, 2);
  EXPECT_EQ(shape(plain), (std::vector<int64_t>{1, 2, 2, 3}));  // #PYTHON list(plain.shape)
  EXPECT_PYTHON(values(plain), truth<std::vector<float>>("values(plain)"));
  auto [v, i] = F::max_pool2d_with_indices(
      x, 3, {.stride = {2, 1}, .padding = 1, .dilation = {1, 2}, .ceil_mode = true});
  EXPECT_PYTHON(values(v), truth<std::vector<float>>("values(v)"));
  EXPECT_EQ(i.to_vector<int64_t>(), truth<std::vector<int64_t>>("values(i)"));
  EXPECT_PYTHON(values(F::max_pool2d(
                    x, 3, {.stride = {2, 1}, .padding = 1, .dilation = {1, 2}, .ceil_mode = true})),
                truth<std::vector<float>>("values(v)"));
}

TEST(FunctionalPooling, MaxPool1d) {
  /*
  #|PYTHON
  x = torch.randn(2, 3, 7, generator=g(2))
  v, i = F.max_pool1d(x, 3, stride=2, return_indices=True)
  */
  const fp::Tensor x = randn({2, 3, 7}, 2);
  EXPECT_PYTHON(values(F::max_pool1d(x, 2)),
                truth<std::vector<float>>("values(F.max_pool1d(x, 2))"));
  auto [v, i] = F::max_pool1d_with_indices(x, 3, {.stride = 2});
  EXPECT_PYTHON(values(v), truth<std::vector<float>>("values(v)"));
  EXPECT_EQ(i.to_vector<int64_t>(), truth<std::vector<int64_t>>("values(i)"));
}

TEST(FunctionalPooling, AvgPool2d) {
  /*
  #|PYTHON
  x = torch.randn(1, 2, 5, 5, generator=g(3))
  */
  const fp::Tensor x = randn({1, 2, 5, 5}, 3);
  EXPECT_PYTHON(values(F::avg_pool2d(x, 2)),
                truth<std::vector<float>>("values(F.avg_pool2d(x, 2))"));
  EXPECT_PYTHON(
      values(F::avg_pool2d(x, 3, {.stride = 2, .padding = 1, .count_include_pad = false})),
      truth<std::vector<float>>(
          "values(F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False))"));
  EXPECT_PYTHON(values(F::avg_pool2d(x, {2, 3}, {.ceil_mode = true, .divisor_override = 4})),
                truth<std::vector<float>>(
                    "values(F.avg_pool2d(x, (2, 3), ceil_mode=True, divisor_override=4))"));
}

TEST(FunctionalPooling, Adaptive) {
  /*
  #|PYTHON
  x = torch.randn(1, 2, 7, 5, generator=g(4))
  x1 = torch.randn(2, 3, 10, generator=g(5))
  mv, mi = F.adaptive_max_pool2d(x, (3, 2), return_indices=True)
  */
  const fp::Tensor x = randn({1, 2, 7, 5}, 4), x1 = randn({2, 3, 10}, 5);
  EXPECT_PYTHON(values(F::adaptive_avg_pool1d(x1, 4)),
                truth<std::vector<float>>("values(F.adaptive_avg_pool1d(x1, 4))"));
  EXPECT_PYTHON(values(F::adaptive_avg_pool2d(x, 3)),
                truth<std::vector<float>>("values(F.adaptive_avg_pool2d(x, 3))"));
  const fp::Tensor kept = F::adaptive_avg_pool2d(x, {std::nullopt, 2});
  EXPECT_EQ(shape(kept),
            (std::vector<int64_t>{1, 2, 7,
                                  2}));  // #PYTHON list(F.adaptive_avg_pool2d(x, (None, 2)).shape)
  EXPECT_PYTHON(values(kept),
                truth<std::vector<float>>("values(F.adaptive_avg_pool2d(x, (None, 2)))"));
  auto [mv, mi] = F::adaptive_max_pool2d_with_indices(x, {3, 2});
  EXPECT_PYTHON(values(mv), truth<std::vector<float>>("values(mv)"));
  EXPECT_EQ(mi.to_vector<int64_t>(), (std::vector<int64_t>{1, 7, 16, 22, 22, 34, 2, 14, 12, 14, 32,
                                                           24}));  // #PYTHON values(mi)
  EXPECT_EQ(values(F::adaptive_max_pool2d(x, {3, 2})), values(mv));
}

TEST(FunctionalPooling, BadInput) {
  const fp::Tensor x = randn({1, 2, 5, 5}, 3);
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::max_pool2d", F::max_pool2d(x, 7));
  EXPECT_TORCH_ERROR("pad should be at most half of effective kernel size",
                     F::avg_pool2d(x, 2, {.padding = 2}));
  const fp::Tensor flat = randn({5}, 1);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "adaptive pooling: Input dimension should be at least 3",
                  F::adaptive_avg_pool2d(flat, {std::nullopt, 2}));
}

}  // namespace
