// fp::functional normalisation against torch.nn.functional.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include <limits>

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

TEST(FunctionalNormalization, NormalizeOtherPWithinAFewUlp) {
  /*
  #|PYTHON
  x = torch.randn(3, 50, generator=g(14))
  */
  const fp::Tensor x = randn({3, 50}, 14);
  const std::vector<float> one = truth<std::vector<float>>("values(F.normalize(x, p=1.0))");
  const std::vector<float> three = truth<std::vector<float>>("values(F.normalize(x, p=3.0))");
  const std::vector<float> half = truth<std::vector<float>>("values(F.normalize(x, p=0.5, dim=0))");
  EXPECT_CLOSE(F::normalize(x, {.p = 1.0}), 1e-7, one);
  EXPECT_CLOSE(F::normalize(x, {.p = 3.0}), 1e-7, three);
  EXPECT_CLOSE(F::normalize(x, {.p = 0.5, .dim = 0}), 1e-7, half);
}

TEST(FunctionalNormalization, BadInput) {
  const fp::Tensor x = randn({2, 3, 4}, 1), stats = randn({3}, 2), wrong = randn({5}, 3);
  EXPECT_TORCH_ERROR("running_mean should contain 3 elements not 5",
                     F::batch_norm(x, wrong, wrong));
  EXPECT_FP_ERROR(
      "fp::functional::batch_norm: with training = true Python updates running_mean and "
      "running_var in place; flash_powder runs inference and does not, so pass std::nullopt",
      F::batch_norm(x, stats, stats, {.training = true}));
  const fp::Tensor single = randn({1, 3}, 4);
  EXPECT_FP_ERROR(
      "fp::functional::batch_norm: Expected more than 1 value per channel when training, got input "
      "size torch.Size([1, 3])",
      F::batch_norm(single, std::nullopt, std::nullopt, {.training = true}));
  EXPECT_FP_ERROR(
      "fp::functional::group_norm: Expected at least 2 dimensions for input tensor but "
      "received 1",
      F::group_norm(wrong, 1));
  EXPECT_TORCH_ERROR("Expected number of channels in input to be divisible by num_groups",
                     F::group_norm(x, 2));
  const fp::Tensor x_one_spatial = randn({2, 3, 1}, 5);
  EXPECT_FP_ERROR(
      "fp::functional::instance_norm: Expected more than 1 spatial element when "
      "training, got input size torch.Size([2, 3, 1])",
      F::instance_norm(x_one_spatial));
}

}  // namespace
