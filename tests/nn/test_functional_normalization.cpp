// fp::functional normalisation against torch.nn.functional.
#include <gtest/gtest.h>

#include <flash_powder/aten/aten.h>
#include <flash_powder/flash_powder.h>

#include <limits>

#include "nn/helpers.h"
#include "support/expect_error.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import torch.nn.functional as F
from truth_helpers import g, message, values
*/

namespace {

using fp_test::truth;

namespace F = fp::functional;
using nn_test::rand;
using nn_test::randn;
using nn_test::values;

TEST(FunctionalNormalization, BatchNormEvalUsesRunningStatistics) {
  /*
  #|PYTHON
  x = torch.randn(2, 3, 2, 2, generator=g(1))
  mean = torch.randn(3, generator=g(2))
  var = torch.lerp(torch.tensor(0.5), torch.tensor(1.5), torch.rand(3, generator=g(3)))
  w = torch.randn(3, generator=g(4))
  b = torch.randn(3, generator=g(5))
  */
  const fp::Tensor x = randn({2, 3, 2, 2}, 1), mean = randn({3}, 2), w = randn({3}, 4),
                   b = randn({3}, 5);
  const fp::Tensor var = fp::dispatch<fp::Tensor>("aten::lerp", "Tensor", fp::tensor(0.5f),
                                                  fp::tensor(1.5f), rand({3}, 3));
  EXPECT_PYTHON(values(F::batch_norm(x, mean, var)),
                truth<std::vector<float>>("values(F.batch_norm(x, mean, var))"));
  EXPECT_PYTHON(values(F::batch_norm(x, mean, var, {.weight = w, .bias = b, .eps = 1e-3})),
                truth<std::vector<float>>("values(F.batch_norm(x, mean, var, w, b, eps=1e-3))"));
  EXPECT_PYTHON(
      values(F::batch_norm(x, std::nullopt, std::nullopt, {.weight = w, .training = true})),
      truth<std::vector<float>>("values(F.batch_norm(x, None, None, w, training=True))"));
}

TEST(FunctionalNormalization, BatchNormEvalEveryDtypeAndLayout) {
  // Eval-mode batch_norm of CPU tensors runs as
  // _native_batch_norm_legit_no_training where that kernel takes the
  // arguments; each case equals Python's F.batch_norm bit for bit, the
  // layout of the result included.
  /*
  #|PYTHON
  x = torch.randn(2, 6, 5, 7, generator=g(21)) * 3
  mean = torch.randn(6, generator=g(22))
  var = torch.rand(6, generator=g(23)) + 0.5
  w = torch.randn(6, generator=g(24))
  b = torch.randn(6, generator=g(25))
  def bn(t, dtype=torch.float32, stats=None, **kw):
      s = stats or dtype
      return F.batch_norm(t.to(dtype), mean.to(s), var.to(s), **{k: v.to(s) for k, v in kw.items()})
  def bits(r):
      return values(r.double()) + list(r.stride())
  */
  const fp::Tensor x = randn({2, 6, 5, 7}, 21) * fp::tensor(3.f);
  const fp::Tensor mean = randn({6}, 22), w = randn({6}, 24), b = randn({6}, 25);
  const fp::Tensor var = rand({6}, 23) + fp::tensor(0.5f);
  const auto as = [](const fp::TensorView& t, fp::DType dtype) { return t.to(dtype); };
  const auto bits = [](const fp::Tensor& result) {
    std::vector<double> out = result.to_vector<double>();
    for (const std::int64_t stride : result.strides())
      out.push_back(static_cast<double>(stride));
    return out;
  };
  const fp::Tensor channels_last = fp::aten::clone(x, fp::MemoryFormat::ChannelsLast);
  EXPECT_PYTHON(bits(F::batch_norm(channels_last, mean, var, {.weight = w, .bias = b})),
                truth<std::vector<double>>(
                    "bits(bn(x.contiguous(memory_format=torch.channels_last), weight=w, bias=b))"));
  const fp::TensorView stepped = x.i(fp::ellipsis, fp::slice(fp::end, fp::end, 2));
  EXPECT_PYTHON(bits(F::batch_norm(stepped, mean, var, {.weight = w})),
                truth<std::vector<double>>("bits(bn(x[..., ::2], weight=w))"));
  // [N, C]: libtorch's kernel takes another path for contiguous input.
  const fp::TensorView rows = x.i(fp::all, fp::all, 0, 0);
  EXPECT_PYTHON(bits(F::batch_norm(rows, mean, var, {.bias = b, .eps = 0.25})),
                truth<std::vector<double>>("bits(F.batch_norm(x[:, :, 0, 0], mean, var, bias=b, "
                                           "eps=0.25))"));
  EXPECT_PYTHON(bits(F::batch_norm(rows.contiguous(), mean, var, {.bias = b, .eps = 0.25})),
                truth<std::vector<double>>("bits(F.batch_norm(x[:, :, 0, 0].contiguous(), mean, "
                                           "var, bias=b, eps=0.25))"));
  const auto in = [&](fp::DType dtype, fp::DType statistics) {
    const fp::Tensor result =
        F::batch_norm(as(x, dtype), as(mean, statistics), as(var, statistics),
                      {.weight = as(w, statistics), .bias = as(b, statistics)});
    EXPECT_EQ(result.dtype(), dtype);
    return bits(result);
  };
  using fp::DType;
  EXPECT_PYTHON(in(DType::F64, DType::F64),
                truth<std::vector<double>>("bits(bn(x, torch.float64, weight=w, bias=b))"));
  EXPECT_PYTHON(
      in(DType::BF16, DType::F32),
      truth<std::vector<double>>("bits(bn(x, torch.bfloat16, torch.float32, weight=w, bias=b))"));
  EXPECT_PYTHON(in(DType::BF16, DType::BF16),
                truth<std::vector<double>>("bits(bn(x, torch.bfloat16, weight=w, bias=b))"));
  EXPECT_PYTHON(
      in(DType::F16, DType::F32),
      truth<std::vector<double>>("bits(bn(x, torch.float16, torch.float32, weight=w, bias=b))"));
  EXPECT_PYTHON(in(DType::F16, DType::F16),
                truth<std::vector<double>>("bits(bn(x, torch.float16, weight=w, bias=b))"));
  // Statistics of another dtype, and an empty input, take aten::batch_norm's
  // route, which answers them in PyTorch's words.
  EXPECT_TORCH_ERROR_EXACT(
      "aten::batch_norm",
      truth<std::string>("message(lambda: bn(x, torch.float64, torch.float32))"),
      F::batch_norm(as(x, DType::F64), mean, var));
  const fp::Tensor empty = fp::zeros({0, 6, 3});
  EXPECT_EQ(
      nn_test::shape(F::batch_norm(empty, mean, var, {.weight = w, .bias = b})),
      truth<std::vector<std::int64_t>>("list(bn(torch.zeros(0, 6, 3), weight=w, bias=b).shape)"));
}

TEST(FunctionalNormalization, InstanceLayerGroupNorm) {
  /*
  #|PYTHON
  x = torch.randn(2, 4, 3, 2, generator=g(6))
  w = torch.randn(4, generator=g(7))
  b = torch.randn(4, generator=g(8))
  lw = torch.randn(3, 2, generator=g(9))
  lb = torch.randn(3, 2, generator=g(10))
  mean = torch.randn(4, generator=g(11))
  var = torch.lerp(torch.tensor(0.5), torch.tensor(1.5), torch.rand(4, generator=g(12)))
  */
  const fp::Tensor x = randn({2, 4, 3, 2}, 6), w = randn({4}, 7), b = randn({4}, 8);
  const fp::Tensor lw = randn({3, 2}, 9), lb = randn({3, 2}, 10), mean = randn({4}, 11);
  const fp::Tensor var = fp::dispatch<fp::Tensor>("aten::lerp", "Tensor", fp::tensor(0.5f),
                                                  fp::tensor(1.5f), rand({4}, 12));
  EXPECT_PYTHON(values(F::instance_norm(x, {.weight = w, .bias = b})),
                truth<std::vector<float>>("values(F.instance_norm(x, weight=w, bias=b))"));
  EXPECT_PYTHON(
      values(F::instance_norm(
          x, {.running_mean = mean, .running_var = var, .use_input_stats = false})),
      truth<std::vector<float>>("values(F.instance_norm(x, mean, var, use_input_stats=False))"));
  EXPECT_PYTHON(values(F::layer_norm(x, {3, 2}, {.weight = lw, .bias = lb})),
                truth<std::vector<float>>("values(F.layer_norm(x, (3, 2), lw, lb))"));
  EXPECT_PYTHON(values(F::layer_norm(x, {2}, {.eps = 0.1})),
                truth<std::vector<float>>("values(F.layer_norm(x, (2,), eps=0.1))"));
  EXPECT_PYTHON(values(F::group_norm(x, 2, {.weight = w, .bias = b})),
                truth<std::vector<float>>("values(F.group_norm(x, 2, w, b))"));
}

TEST(FunctionalNormalization, NormalizeEuclideanAndInfinityAreBitExact) {
  /*
  #|PYTHON
  x = torch.randn(2, 3, 4, generator=g(13))
  */
  const fp::Tensor x = randn({2, 3, 4}, 13);
  EXPECT_PYTHON(values(F::normalize(x)), truth<std::vector<float>>("values(F.normalize(x))"));
  EXPECT_PYTHON(values(F::normalize(x, {.dim = -1, .eps = 0.5})),
                truth<std::vector<float>>("values(F.normalize(x, dim=-1, eps=0.5))"));
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_PYTHON(values(F::normalize(x, {.p = inf})),
                truth<std::vector<float>>("values(F.normalize(x, p=math.inf))"));
  EXPECT_PYTHON(values(F::normalize(x, {.p = -inf, .dim = 0})),
                truth<std::vector<float>>("values(F.normalize(x, p=-math.inf, dim=0))"));
  EXPECT_PYTHON(values(F::normalize(x, {.p = 0.0})),
                truth<std::vector<float>>("values(F.normalize(x, p=0.0))"));
}

TEST(FunctionalNormalization, BadInput) {
  const fp::Tensor x = randn({2, 3, 4}, 1), stats = randn({3}, 2), wrong = randn({5}, 3);
  EXPECT_TORCH_ERROR("running_mean should contain 3 elements not 5",
                     F::batch_norm(x, wrong, wrong));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "fp::functional::batch_norm: with training = true Python updates running_mean and "
      "running_var in place; flash_powder runs inference and does not, so pass std::nullopt",
      F::batch_norm(x, stats, stats, {.training = true}));
  const fp::Tensor single = randn({1, 3}, 4);
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "fp::functional::batch_norm: Expected more than 1 value per channel when training, got input "
      "size torch.Size([1, 3])",
      F::batch_norm(single, std::nullopt, std::nullopt, {.training = true}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::group_norm: Expected at least 2 dimensions for input tensor but "
                  "received 1",
                  F::group_norm(wrong, 1));
  EXPECT_TORCH_ERROR("Expected number of channels in input to be divisible by num_groups",
                     F::group_norm(x, 2));
  const fp::Tensor x_one_spatial = randn({2, 3, 1}, 5);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::instance_norm: Expected more than 1 spatial element when "
                  "training, got input size torch.Size([2, 3, 1])",
                  F::instance_norm(x_one_spatial));
}

}  // namespace
