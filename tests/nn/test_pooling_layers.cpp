// The pooling layers against torch.nn: MaxPool3d, AvgPool1d/3d,
// AdaptiveMaxPool1d/3d, AdaptiveAvgPool3d, LPPool1d/2d/3d, MaxUnpool1d/2d/3d
// and FractionalMaxPool2d/3d (outputs, indices, names, state-dict keys and
// the checks Python's constructors make).
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include <limits>
#include <tuple>

#include "nn/helpers.h"
#include "support/expect_error.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import torch.nn as nn
from truth_helpers import g, lp_pool, values, run, message
*/

// A named namespace: the unity build compiles this file together with others.
namespace pooling_layers_test {

using fp_test::truth;

using nn_test::keys;
using nn_test::randn;
using nn_test::values;

using Floats = std::vector<float>;
using Indices = std::vector<int64_t>;

TEST(PoolingLayers, MaxAndAvg) {
  /*
  #|PYTHON
  x1 = torch.randn(2, 3, 9, generator=g(1))
  x3 = torch.randn(2, 2, 5, 6, 4, generator=g(2))
  m = nn.MaxPool3d(3, stride=(2, 1, 2), padding=1, dilation=(1, 2, 1), ceil_mode=True,
                   return_indices=True)
  v, i = m(x3)
  */
  const fp::Tensor x1 = randn({2, 3, 9}, 1), x3 = randn({2, 2, 5, 6, 4}, 2);
  EXPECT_PYTHON(values(fp::nn::MaxPool3d(2)(x3)), truth<Floats>("run(nn.MaxPool3d(2), x3)"));
  EXPECT_PYTHON(values(fp::nn::MaxPool3d({2, 1, 2}, {.stride = 1})(x3.i(0))),
                truth<Floats>("run(nn.MaxPool3d((2, 1, 2), stride=1), x3[0])"));
  const fp::nn::MaxPool3d m(3, {.stride = {2, 1, 2},
                                .padding = 1,
                                .dilation = {1, 2, 1},
                                .return_indices = true,
                                .ceil_mode = true});
  fp::Tensor v, i;
  std::tie(v, i) = m.forward_with_indices(x3);
  EXPECT_PYTHON(values(v), truth<Floats>("values(v)"));
  EXPECT_EQ(i.to_vector<int64_t>(), truth<Indices>("values(i)"));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::nn::MaxPool3d: made with return_indices = true, it returns values and "
                        "indices: call forward_with_indices(input)",
                        m(x3));
  EXPECT_PYTHON(values(fp::nn::AvgPool1d(3, {.stride = 2, .padding = 1, .ceil_mode = true})(x1)),
                truth<Floats>("run(nn.AvgPool1d(3, stride=2, padding=1, ceil_mode=True), x1)"));
  EXPECT_PYTHON(values(fp::nn::AvgPool1d(2, {.count_include_pad = false})(x1.i(1))),
                truth<Floats>("run(nn.AvgPool1d(2, count_include_pad=False), x1[1])"));
  EXPECT_PYTHON(
      values(fp::nn::AvgPool3d({2, 3, 2},
                               {.stride = 1, .padding = {1, 1, 0}, .divisor_override = 5})(x3)),
      truth<Floats>(
          "run(nn.AvgPool3d((2, 3, 2), stride=1, padding=(1, 1, 0), divisor_override=5), x3)"));
  EXPECT_EQ(fp::nn::MaxPool3d(2).type_name(), "MaxPool3d");  // #PYTHON type(m).__name__
  EXPECT_EQ(fp::nn::AvgPool1d(2).type_name(),
            "AvgPool1d");                            // #PYTHON nn.AvgPool1d(2).__class__.__name__
  EXPECT_EQ(keys(m), (std::vector<std::string>{}));  // #PYTHON list(m.state_dict().keys())
}

TEST(PoolingLayers, Adaptive) {
  /*
  #|PYTHON
  x1 = torch.randn(2, 3, 10, generator=g(3))
  x3 = torch.randn(2, 2, 5, 7, 6, generator=g(4))
  v1, i1 = nn.AdaptiveMaxPool1d(4, return_indices=True)(x1)
  v3, i3 = nn.AdaptiveMaxPool3d((None, 3, 2), return_indices=True)(x3[0])
  */
  const fp::Tensor x1 = randn({2, 3, 10}, 3), x3 = randn({2, 2, 5, 7, 6}, 4);
  const fp::nn::AdaptiveMaxPool1d max1(4, {.return_indices = true});
  fp::Tensor v1, i1;
  std::tie(v1, i1) = max1.forward_with_indices(x1);
  EXPECT_PYTHON(values(v1), truth<Floats>("values(v1)"));
  EXPECT_EQ(i1.to_vector<int64_t>(), truth<Indices>("values(i1)"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::nn::AdaptiveMaxPool1d: made with return_indices",
                  max1(x1));
  EXPECT_PYTHON(values(fp::nn::AdaptiveMaxPool1d(3)(x1.i(0))),
                truth<Floats>("run(nn.AdaptiveMaxPool1d(3), x1[0])"));
  fp::Tensor v3, i3;
  std::tie(v3, i3) = fp::nn::AdaptiveMaxPool3d({std::nullopt, 3, 2}).forward_with_indices(x3.i(0));
  EXPECT_PYTHON(values(v3), truth<Floats>("values(v3)"));
  EXPECT_EQ(i3.to_vector<int64_t>(), truth<Indices>("values(i3)"));
  EXPECT_PYTHON(values(fp::nn::AdaptiveMaxPool3d(2)(x3)),
                truth<Floats>("run(nn.AdaptiveMaxPool3d(2), x3)"));
  EXPECT_PYTHON(values(fp::nn::AdaptiveAvgPool3d({3, std::nullopt, 4})(x3)),
                truth<Floats>("run(nn.AdaptiveAvgPool3d((3, None, 4)), x3)"));
  EXPECT_PYTHON(values(fp::nn::AdaptiveAvgPool3d(2)(x3.i(1).transpose(1, 2))),
                truth<Floats>("run(nn.AdaptiveAvgPool3d(2), x3[1].transpose(1, 2))"));
}

TEST(PoolingLayers, LPPool) {
  /*
  #|PYTHON
  x1 = torch.randn(2, 3, 9, generator=g(5))
  x2 = torch.randn(2, 2, 6, 7, generator=g(6))
  x3 = torch.randn(1, 2, 4, 5, 6, generator=g(7))
  */
  const fp::Tensor x1 = randn({2, 3, 9}, 5), x2 = randn({2, 2, 6, 7}, 6),
                   x3 = randn({1, 2, 4, 5, 6}, 7);
  EXPECT_PYTHON(values(fp::nn::LPPool1d(2, 3, {.stride = 2})(x1)),
                truth<Floats>("run(nn.LPPool1d(2, 3, stride=2), x1)"));
  EXPECT_PYTHON(values(fp::nn::LPPool2d(1.5, {2, 3}, {.ceil_mode = true})(x2.abs())),
                truth<Floats>("run(nn.LPPool2d(1.5, (2, 3), ceil_mode=True), x2.abs())"));
  EXPECT_PYTHON(values(fp::nn::LPPool2d(std::numeric_limits<double>::infinity(), 2)(x2.i(0))),
                truth<Floats>("values(lp_pool(2, x2[0], float('inf'), 2))"));
  EXPECT_PYTHON(values(fp::nn::LPPool3d(2, {2, 2, 3}, {.stride = {1, 2, 2}})(x3)),
                truth<Floats>("run(nn.LPPool3d(2, (2, 2, 3), stride=(1, 2, 2)), x3)"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "norm_type must not be 0",
                  fp::nn::LPPool1d(0, 2)(x1));
}

TEST(PoolingLayers, MaxUnpool) {
  /*
  #|PYTHON
  x1 = torch.randn(2, 3, 8, generator=g(8))
  x2 = torch.randn(2, 2, 6, 8, generator=g(9))
  x3 = torch.randn(1, 2, 4, 6, 6, generator=g(10))
  v1, i1 = nn.MaxPool1d(3, stride=2, padding=1, return_indices=True)(x1)
  v2, i2 = nn.MaxPool2d(2, return_indices=True)(x2)
  v3, i3 = nn.MaxPool3d(2, return_indices=True)(x3)
  */
  const fp::Tensor x1 = randn({2, 3, 8}, 8), x2 = randn({2, 2, 6, 8}, 9),
                   x3 = randn({1, 2, 4, 6, 6}, 10);
  fp::Tensor v1, i1;
  std::tie(v1, i1) = fp::nn::MaxPool1d(3, {.stride = 2, .padding = 1}).forward_with_indices(x1);
  fp::Tensor v2, i2;
  std::tie(v2, i2) = fp::nn::MaxPool2d(2).forward_with_indices(x2);
  fp::Tensor v3, i3;
  std::tie(v3, i3) = fp::nn::MaxPool3d(2).forward_with_indices(x3);
  const fp::nn::MaxUnpool1d unpool1(3, {.stride = 2, .padding = 1});
  EXPECT_PYTHON(values(unpool1(v1, i1, std::vector<int64_t>{8})),
                truth<Floats>("values(nn.MaxUnpool1d(3, stride=2, padding=1)(v1, i1, [8]))"));
  EXPECT_PYTHON(
      values(unpool1.forward(v1.i(0), i1.i(0), {1, 3, 8})),
      truth<Floats>("values(nn.MaxUnpool1d(3, stride=2, padding=1)(v1[0], i1[0], [1, 3, 8]))"));
  const fp::nn::MaxUnpool2d unpool2(2);
  EXPECT_PYTHON(values(unpool2(v2, i2)), truth<Floats>("values(nn.MaxUnpool2d(2)(v2, i2))"));
  EXPECT_PYTHON(values(unpool2.forward(v2, i2, {2, 2, 7, 9})),
                truth<Floats>("values(nn.MaxUnpool2d(2)(v2, i2, [2, 2, 7, 9]))"));
  EXPECT_PYTHON(values(fp::nn::MaxUnpool3d(2)(v3.i(0), i3.i(0))),
                truth<Floats>("values(nn.MaxUnpool3d(2)(v3[0], i3[0]))"));
  EXPECT_EQ(unpool2.type_name(), "MaxUnpool2d");  // #PYTHON nn.MaxUnpool2d(2).__class__.__name__
  EXPECT_EQ(keys(unpool2),
            (std::vector<std::string>{}));  // #PYTHON list(nn.MaxUnpool2d(2).state_dict().keys())
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::max_unpool2d: invalid output_size \"[9, 9]\"",
                  unpool2.forward(v2, i2, {9, 9}));
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::max_unpool2d", unpool2(v2, i1));
}

TEST(PoolingLayers, FractionalMaxPool) {
  /*
  #|PYTHON
  x2 = torch.randn(2, 3, 9, 8, generator=g(11))
  x3 = torch.randn(2, 2, 7, 6, 8, generator=g(12))
  s2 = torch.rand(2, 3, 2, generator=g(13))
  m2 = nn.FractionalMaxPool2d((3, 2), output_size=(4, 5), return_indices=True, _random_samples=s2)
  v2, i2 = m2(x2)
  torch.manual_seed(14)
  m3 = nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.6, 0.5))
  first = values(m3(x3))
  second = values(m3(x3[1]))
  */
  const fp::Tensor x2 = randn({2, 3, 9, 8}, 11), x3 = randn({2, 2, 7, 6, 8}, 12);
  const fp::Tensor s2 = nn_test::rand({2, 3, 2}, 13);
  const fp::nn::FractionalMaxPool2d m2(
      {3, 2}, {.output_size = {4, 5}, .return_indices = true, .random_samples = s2});
  fp::Tensor v2, i2;
  std::tie(v2, i2) = m2.forward_with_indices(x2);
  EXPECT_PYTHON(values(v2), truth<Floats>("values(v2)"));
  EXPECT_EQ(i2.to_vector<int64_t>(), truth<Indices>("values(i2)"));
  EXPECT_EQ(keys(m2),
            (std::vector<std::string>{"_random_samples"}));  // #PYTHON list(m2.state_dict().keys())
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::FractionalMaxPool2d: made with return_indices", m2(x2));
  // Without samples: each forward draws from the generator fp::nn::manual_seed seeds.
  fp::nn::manual_seed(14);
  const fp::nn::FractionalMaxPool3d m3(2, {.output_ratio = {0.5, 0.6, 0.5}});
  EXPECT_EQ(keys(m3), (std::vector<std::string>{}));  // #PYTHON list(m3.state_dict().keys())
  EXPECT_PYTHON(values(m3(x3)), truth<Floats>("first"));
  EXPECT_PYTHON(values(m3(x3.i(1))), truth<Floats>("second"));
  EXPECT_EQ(m3.type_name(), "FractionalMaxPool3d");  // #PYTHON type(m3).__name__
}

TEST(PoolingLayers, FractionalMaxPoolChecksLikePython) {
  /*
  #|PYTHON
  neither = message(lambda: nn.FractionalMaxPool2d(2))
  both = message(lambda: nn.FractionalMaxPool3d(2, output_size=3, output_ratio=0.5))
  ratio = message(lambda: nn.FractionalMaxPool2d(2, output_ratio=(0.5, 1.0)))
  kernel = message(lambda: nn.FractionalMaxPool3d((0, 2, 2), output_size=2))
  */
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::nn::FractionalMaxPool2d: " + truth<std::string>("neither"),
                        fp::nn::FractionalMaxPool2d(2, {}));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::nn::FractionalMaxPool3d: " + truth<std::string>("both"),
                        fp::nn::FractionalMaxPool3d(2, {.output_size = 3, .output_ratio = 0.5}));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::nn::FractionalMaxPool2d: " + truth<std::string>("ratio"),
                        fp::nn::FractionalMaxPool2d(2, {.output_ratio = {0.5, 1.0}}));
  // Python's words from "but got" on: torch 2.11 says "must greater than".
  const auto kernel = truth<std::string>("kernel");
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, kernel.substr(kernel.find("but got")),
                  fp::nn::FractionalMaxPool3d({0, 2, 2}, {.output_size = 2}));
}

}  // namespace pooling_layers_test
