// The dropout family (fp::nn Dropout, Dropout1d/2d/3d, AlphaDropout,
// FeatureAlphaDropout and their fp::functional forms) and
// fp::functional::gumbel_softmax against torch.nn: the identity in eval
// mode, and in training with an fp::Generator(seed) Python's values after
// torch.manual_seed(seed), bit for bit.
#include <gtest/gtest.h>

#include <flash_powder/aten/aten.h>
#include <flash_powder/flash_powder.h>

#include <functional>
#include <string>
#include <vector>

#include "nn/helpers.h"
#include "nn/summary.h"
#include "support/expect_error.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import warnings
import torch.nn as nn
import torch.nn.functional as F
from truth_helpers import g, message, values
warnings.simplefilter("ignore")  # dropout2d/3d warn about the ranks tested here
def summary(t):
    return [[float(s) for s in t.shape], [float(s) for s in t.stride()], values(t)]
def seeded(seed, f, *args, **kw):
    """f(*args, **kw) drawing from the global generator seeded with `seed`."""
    torch.manual_seed(seed)
    return f(*args, **kw)
*/

namespace {

using fp_test::truth;

namespace F = fp::functional;
using nn_test::randn;
using nn_test::Summary;

TEST(DropoutLayers, IdentityInEval) {
  /*
  #|PYTHON
  x3 = torch.randn(2, 3, 4, generator=g(1))
  x5 = torch.randn(1, 2, 2, 2, 3, generator=g(2))
  layers = [nn.Dropout(0.3), nn.Dropout1d(0.3), nn.Dropout2d(0.3), nn.Dropout3d(0.3),
            nn.AlphaDropout(0.3), nn.FeatureAlphaDropout(0.3)]
  for layer in layers:
      layer.eval()
  results = [summary(layer(x)) for layer in layers for x in (x3, x3[0])]
  results += [summary(layers[3](x5)), summary(layers[3](x5[0]))]
  */
  const fp::Tensor x3 = randn({2, 3, 4}, 1), x5 = randn({1, 2, 2, 2, 3}, 2);
  const fp::nn::Dropout dropout(0.3);
  const fp::nn::Dropout1d dropout1d(0.3);
  const fp::nn::Dropout2d dropout2d(0.3);
  const fp::nn::Dropout3d dropout3d(0.3);
  const fp::nn::AlphaDropout alpha(0.3);
  const fp::nn::FeatureAlphaDropout feature_alpha(0.3);
  const fp::nn::Module* layers[] = {&dropout,   &dropout1d, &dropout2d,
                                    &dropout3d, &alpha,     &feature_alpha};
  std::vector<Summary> actual;
  for (const fp::nn::Module* layer : layers) {
    actual.push_back(nn_test::summary((*layer)(x3)));
    actual.push_back(nn_test::summary((*layer)(x3.i(0))));
  }
  actual.push_back(nn_test::summary(dropout3d(x5)));
  actual.push_back(nn_test::summary(dropout3d(x5.i(0))));
  EXPECT_EQ(actual, truth<std::vector<Summary>>("results"));
  for (const fp::nn::Module* layer : layers)
    EXPECT_TRUE(nn_test::keys(*layer).empty());
}

TEST(DropoutLayers, BadInput) {
  /*
  #|PYTHON
  x4 = torch.randn(1, 2, 3, 4)
  */
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::BadArgument,
      "fp::nn::Dropout2d: " + truth<std::string>("message(lambda: nn.Dropout2d(1.5))"),
      fp::nn::Dropout2d(1.5));
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::BadArgument,
      "fp::nn::AlphaDropout: " + truth<std::string>("message(lambda: nn.AlphaDropout(-0.1))"),
      fp::nn::AlphaDropout(-0.1));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::nn::FeatureAlphaDropout",
                  fp::nn::FeatureAlphaDropout(2.0));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::nn::Dropout1d", fp::nn::Dropout1d(2.0));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "fp::nn::Dropout3d", fp::nn::Dropout3d(2.0));
  // Python's dropout1d checks the rank in eval mode too.
  const fp::Tensor x4 = randn({1, 2, 3, 4}, 1);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::dropout1d: " +
                      truth<std::string>("message(lambda: nn.Dropout1d().eval()(x4))"),
                  fp::nn::Dropout1d()(x4));
}

/// A functional dropout with options {p, training, generator}.
using DropoutFunction = std::function<fp::Tensor(const fp::TensorView&, double, fp::Generator*)>;

TEST(FunctionalDropout, SeededTrainingEqualsPython) {
  /*
  #|PYTHON
  x = torch.randn(3, 4, 2, 5, generator=g(3))
  functions = [F.dropout, F.dropout1d, F.dropout2d, F.dropout3d, F.alpha_dropout, F.feature_alpha_dropout]
  def inputs(x):
      return [x, x.transpose(1, -1), x[:, :, ::2]]
  results = [summary(seeded(seed, f, xs.to(dtype), p, training=True))
             for f in functions
             for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16)
             for seed, p in ((7, 0.3), (8, 0.75))
             for xs in (inputs(x[0]) if f is F.dropout1d else inputs(x))]
  */
  const fp::Tensor x = randn({3, 4, 2, 5}, 3);
  const auto dropout_like = [](auto function) -> DropoutFunction {
    return [function](const fp::TensorView& input, double p, fp::Generator* generator) {
      return function(input, {.p = p, .training = true, .generator = generator});
    };
  };
  const DropoutFunction functions[] = {
      dropout_like(&F::dropout),       dropout_like(&F::dropout1d),
      dropout_like(&F::dropout2d),     dropout_like(&F::dropout3d),
      dropout_like(&F::alpha_dropout), dropout_like(&F::feature_alpha_dropout)};
  const auto inputs = [](const fp::Tensor& t) {
    return std::vector<fp::Tensor>{t, fp::Tensor(t.transpose(1, -1)),
                                   fp::Tensor(t.i(fp::all, fp::all, fp::slice(0, fp::end, 2)))};
  };
  std::vector<Summary> actual;
  for (std::size_t f = 0; f < std::size(functions); ++f) {
    for (const fp::DType dtype :
         {fp::DType::F32, fp::DType::F64, fp::DType::F16, fp::DType::BF16}) {
      for (const auto& [seed, p] : {std::pair{7, 0.3}, std::pair{8, 0.75}}) {
        for (const fp::Tensor& input : inputs(f == 1 ? fp::Tensor(x.i(0)) : x)) {
          fp::Generator generator(static_cast<std::uint64_t>(seed));
          actual.push_back(nn_test::summary(functions[f](input.to(dtype), p, &generator)));
        }
      }
    }
  }
  EXPECT_EQ(actual, truth<std::vector<Summary>>("results"));
}

TEST(FunctionalDropout, UnbatchedEdgesAndEval) {
  /*
  #|PYTHON
  x = torch.randn(4, 6, generator=g(4))
  x4 = torch.randn(2, 3, 2, 2, generator=g(5))
  unbatched1d = seeded(9, F.dropout1d, x, 0.5)
  unbatched3d = seeded(9, F.dropout3d, x4, 0.5)
  none = seeded(9, F.dropout2d, x4, 0.0)
  every = seeded(9, F.alpha_dropout, x4, 1.0, training=True)
  every_feature = seeded(9, F.dropout, x4, 1.0)
  */
  const fp::Tensor x = randn({4, 6}, 4), x4 = randn({2, 3, 2, 2}, 5);
  fp::Generator generator(9);
  EXPECT_SAME(F::dropout1d(x, {.generator = &generator}), truth<Summary>("summary(unbatched1d)"));
  generator.manual_seed(9);
  EXPECT_SAME(F::dropout3d(x4, {.generator = &generator}), truth<Summary>("summary(unbatched3d)"));
  EXPECT_SAME(F::dropout2d(x4, {.p = 0.0, .generator = &generator}),
              truth<Summary>("summary(none)"));
  EXPECT_SAME(F::alpha_dropout(x4, {.p = 1.0, .training = true, .generator = &generator}),
              truth<Summary>("summary(every)"));
  EXPECT_SAME(F::dropout(x4, {.p = 1.0, .generator = &generator}),
              truth<Summary>("summary(every_feature)"));
  // Eval mode is the identity, whatever the generator.
  EXPECT_EQ(nn_test::summary(F::dropout2d(x4, {.training = false, .generator = &generator})),
            nn_test::summary(x4));
  EXPECT_EQ(nn_test::summary(F::feature_alpha_dropout(x4)), nn_test::summary(x4));
}

TEST(FunctionalDropout, WithoutGeneratorDrawsFromLibtorch) {
  const fp::Tensor x = fp::ones({16, 4, 8});
  const fp::Tensor dropped = F::dropout2d(x, {.p = 0.5});
  // Whole channels ([n, c] here) are zero or scaled by 1 / (1 - p).
  for (std::int64_t n = 0; n < 16; ++n) {
    for (std::int64_t c = 0; c < 4; ++c) {
      const std::vector<float> values = nn_test::values(dropped.i(n, c));
      EXPECT_TRUE(values == std::vector<float>(8, 0.0f) || values == std::vector<float>(8, 2.0f));
    }
  }
  const float total = fp::aten::sum(dropped).item<float>();
  EXPECT_GT(total, 0.0f);
  EXPECT_LT(total, 16.0f * 4.0f * 8.0f * 2.0f);
}

TEST(FunctionalDropout, BadInput) {
  /*
  #|PYTHON
  flat = torch.randn(5)
  */
  const fp::Tensor x = randn({2, 3}, 1), flat = randn({5}, 2);
  fp::Generator generator;
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::BadArgument,
      "fp::functional::alpha_dropout: " +
          truth<std::string>("message(lambda: F.alpha_dropout(torch.ones(1), 1.5))"),
      F::alpha_dropout(x, {.p = 1.5}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::dropout3d: dropout probability has to be between 0 and 1",
                  F::dropout3d(x, {.p = -0.5, .training = false}));
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::BadArgument,
      "fp::functional::dropout2d: " +
          truth<std::string>("message(lambda: F.dropout2d(flat, 0.5, training=True))"),
      F::dropout2d(flat, {.generator = &generator}));
  EXPECT_TORCH_ERROR(truth<std::string>("message(lambda: F.dropout2d(flat, 0.5, training=True))"),
                     F::dropout2d(flat));
}

TEST(FunctionalGumbelSoftmax, SeededEqualsPython) {
  /*
  #|PYTHON
  logits = torch.randn(3, 5, 4, generator=g(6))
  cases = [dict(), dict(tau=0.3), dict(tau=2.7, dim=1), dict(hard=True), dict(hard=True, dim=0, tau=0.5)]
  results = [summary(seeded(11, F.gumbel_softmax, layout(logits.to(dtype)), **kw))
             for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16)
             for layout in (lambda t: t, lambda t: t.transpose(0, 2))
             for kw in cases]
  */
  const fp::Tensor logits = randn({3, 5, 4}, 6);
  const F::GumbelSoftmaxOptions cases[] = {{},
                                           {.tau = 0.3},
                                           {.tau = 2.7, .dim = 1},
                                           {.hard = true},
                                           {.tau = 0.5, .hard = true, .dim = 0}};
  std::vector<Summary> actual;
  for (const fp::DType dtype : {fp::DType::F32, fp::DType::F64, fp::DType::F16, fp::DType::BF16}) {
    for (const bool transposed : {false, true}) {
      for (const F::GumbelSoftmaxOptions& options : cases) {
        const fp::Tensor typed = logits.to(dtype);
        const fp::Tensor input = transposed ? fp::Tensor(typed.transpose(0, 2)) : typed;
        fp::Generator generator(11);
        actual.push_back(nn_test::summary(F::gumbel_softmax(input, generator, options)));
      }
    }
  }
  EXPECT_EQ(actual, truth<std::vector<Summary>>("results"));
}

TEST(FunctionalGumbelSoftmax, DrawsInSequenceAndRefusesIntegers) {
  /*
  #|PYTHON
  logits = torch.randn(2, 3, generator=g(12))
  torch.manual_seed(13)
  first = F.gumbel_softmax(logits)
  second = F.gumbel_softmax(logits, hard=True)
  */
  const fp::Tensor logits = randn({2, 3}, 12);
  fp::Generator generator(13);
  EXPECT_SAME(F::gumbel_softmax(logits, generator), truth<Summary>("summary(first)"));
  EXPECT_SAME(F::gumbel_softmax(logits, generator, {.hard = true}),
              truth<Summary>("summary(second)"));
  // From libtorch's global generator: a distribution along the last dimension.
  const fp::Tensor unseeded = F::gumbel_softmax(logits);
  const std::vector<float> sums =
      nn_test::values(fp::aten::sum_dim_IntList(unseeded, std::vector<std::int64_t>{-1}));
  for (const float sum : sums)
    EXPECT_NEAR(sum, 1.0f, 1e-6f);  // softmax rows, any sample
  const fp::Tensor labels = fp::tensor({1L, 2L});
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::functional::gumbel_softmax: the logits must be floating point, but "
                        "got torch.int64",
                        F::gumbel_softmax(labels, generator));
}

}  // namespace
