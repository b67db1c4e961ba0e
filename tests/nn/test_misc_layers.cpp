// fp::nn Bilinear, EmbeddingBag, CosineSimilarity, PairwiseDistance,
// Unflatten, ParameterList and ParameterDict, and fp::functional bilinear,
// embedding_bag, pairwise_distance, cosine_similarity, pdist and one_hot,
// against torch.nn.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include <limits>
#include <string>
#include <vector>

#include "nn/helpers.h"
#include "nn/summary.h"
#include "support/expect_error.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import torch.nn as nn
import torch.nn.functional as F
from truth_helpers import g, filled, message, values
torch.set_grad_enabled(False)
def summary(t):
    return [[float(s) for s in t.shape], [float(s) for s in t.stride()], values(t)]
*/

namespace {

using fp_test::truth;

namespace F = fp::functional;
using nn_test::keys;
using nn_test::randn;
using nn_test::Summary;

template <class M>
M filled(M module) {
  module.load_state_dict(nn_test::filled(module));
  return module;
}

const double kInfinity = std::numeric_limits<double>::infinity();

TEST(Bilinear, LayerKeysAndValues) {
  /*
  #|PYTHON
  m = filled(nn.Bilinear(3, 4, 2))
  x1 = torch.randn(5, 3, generator=g(1))
  x2 = torch.randn(5, 4, generator=g(2))
  b1 = torch.randn(2, 3, 3, generator=g(3))
  b2 = torch.randn(2, 3, 4, generator=g(4))
  no_bias = filled(nn.Bilinear(3, 4, 2, bias=False, dtype=torch.float64))
  */
  const fp::nn::Bilinear m = filled(fp::nn::Bilinear(3, 4, 2));
  EXPECT_EQ(keys(m),
            (std::vector<std::string>{"weight", "bias"}));  // #PYTHON list(m.state_dict().keys())
  const fp::Tensor x1 = randn({5, 3}, 1), x2 = randn({5, 4}, 2);
  const fp::Tensor b1 = randn({2, 3, 3}, 3), b2 = randn({2, 3, 4}, 4);
  EXPECT_SAME(m(x1, x2), truth<Summary>("summary(m(x1, x2))"));
  EXPECT_SAME(m(b1, b2), truth<Summary>("summary(m(b1, b2))"));
  EXPECT_SAME(m(b1.transpose(0, 1), b2.transpose(0, 1)),
              truth<Summary>("summary(m(b1.transpose(0, 1), b2.transpose(0, 1)))"));
  const fp::nn::Bilinear no_bias =
      filled(fp::nn::Bilinear(3, 4, 2, {.bias = false, .dtype = fp::DType::F64}));
  EXPECT_EQ(keys(no_bias),
            (std::vector<std::string>{"weight"}));  // #PYTHON list(no_bias.state_dict().keys())
  EXPECT_SAME(no_bias(x1.to(fp::DType::F64), x2.to(fp::DType::F64)),
              truth<Summary>("summary(no_bias(x1.double(), x2.double()))"));
  EXPECT_SAME(F::bilinear(x1, x2, m.weight, m.bias),
              truth<Summary>("summary(F.bilinear(x1, x2, m.weight, m.bias))"));
  EXPECT_SAME(F::bilinear(x1, x2, m.weight),
              truth<Summary>("summary(F.bilinear(x1, x2, m.weight))"));
}

TEST(Bilinear, BadInput) {
  /*
  #|PYTHON
  m = nn.Bilinear(3, 4, 2)
  */
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::BadArgument,
      "fp::nn::Bilinear: " + truth<std::string>("message(lambda: nn.Bilinear(0, 4, 2))"),
      fp::nn::Bilinear(0, 4, 2));
  const fp::nn::Bilinear m(3, 4, 2);
  const fp::Tensor x1 = randn({5, 3}, 1), wrong = randn({5, 3}, 2), fewer = randn({4, 4}, 3);
  EXPECT_TORCH_ERROR(truth<std::string>("message(lambda: m(torch.randn(5, 3), torch.randn(5, 3)))"),
                     m(x1, wrong));
  EXPECT_TORCH_ERROR(truth<std::string>("message(lambda: m(torch.randn(5, 3), torch.randn(4, 4)))"),
                     m(x1, fewer));
}

TEST(FunctionalEmbeddingBag, ModesOffsetsAndWeights) {
  /*
  #|PYTHON
  w = torch.randn(10, 3, generator=g(5))
  idx = torch.tensor([0, 2, 4, 5, 4, 3, 2, 9])
  offsets = torch.tensor([0, 4])
  last = torch.tensor([0, 3, 3, 8])
  psw = torch.randn(8, generator=g(6))
  two_d = torch.tensor([[1, 2, 2], [4, 5, 9]])
  psw2 = torch.randn(2, 3, generator=g(7))
  results = [summary(F.embedding_bag(idx, w, offsets, mode=mode)) for mode in ("sum", "mean", "max")]
  results += [summary(F.embedding_bag(idx, w, last, mode=mode, include_last_offset=True))
              for mode in ("sum", "mean", "max")]
  results += [summary(F.embedding_bag(idx, w, offsets, mode=mode, padding_idx=pad))
              for mode in ("sum", "mean", "max") for pad in (2, -1)]
  results += [summary(F.embedding_bag(two_d, w, mode=mode)) for mode in ("sum", "mean", "max")]
  weighted = F.embedding_bag(idx, w, last, mode="sum", per_sample_weights=psw, include_last_offset=True)
  weighted2 = F.embedding_bag(two_d, w, mode="sum", per_sample_weights=psw2, padding_idx=9)
  */
  const fp::Tensor w = randn({10, 3}, 5);
  const fp::Tensor idx = fp::tensor({0L, 2L, 4L, 5L, 4L, 3L, 2L, 9L});
  const fp::Tensor offsets = fp::tensor({0L, 4L}), last = fp::tensor({0L, 3L, 3L, 8L});
  const fp::Tensor psw = randn({8}, 6), psw2 = randn({2, 3}, 7);
  const fp::Tensor two_d = fp::tensor({{1L, 2L, 2L}, {4L, 5L, 9L}});
  const auto results = truth<std::vector<Summary>>("results");
  std::vector<Summary> actual;
  const char* const modes[] = {"sum", "mean", "max"};
  for (const char* mode : modes)
    actual.push_back(nn_test::summary(F::embedding_bag(idx, w, offsets, {.mode = mode})));
  for (const char* mode : modes) {
    actual.push_back(nn_test::summary(
        F::embedding_bag(idx, w, last, {.mode = mode, .include_last_offset = true})));
  }
  for (const char* mode : modes) {
    for (const std::int64_t pad : {2, -1}) {
      actual.push_back(
          nn_test::summary(F::embedding_bag(idx, w, offsets, {.mode = mode, .padding_idx = pad})));
    }
  }
  for (const char* mode : modes)
    actual.push_back(nn_test::summary(F::embedding_bag(two_d, w, std::nullopt, {.mode = mode})));
  EXPECT_EQ(actual, results);
  EXPECT_SAME(
      F::embedding_bag(idx, w, last,
                       {.mode = "sum", .per_sample_weights = psw, .include_last_offset = true}),
      truth<Summary>("summary(weighted)"));
  EXPECT_SAME(F::embedding_bag(two_d, w, std::nullopt,
                               {.mode = "sum", .per_sample_weights = psw2, .padding_idx = 9}),
              truth<Summary>("summary(weighted2)"));
}

TEST(FunctionalEmbeddingBag, DtypesAndIndexTypes) {
  /*
  #|PYTHON
  w = torch.randn(6, 4, generator=g(8))
  idx = torch.tensor([5, 1, 1, 0, 3], dtype=torch.int32)
  offsets = torch.tensor([0, 2], dtype=torch.int32)
  results = [summary(F.embedding_bag(idx, w.to(dtype), offsets, mode=mode))
             for dtype in (torch.float64, torch.float16, torch.bfloat16) for mode in ("sum", "mean", "max")]
  strided = F.embedding_bag(idx, w.transpose(0, 1).contiguous().transpose(0, 1), offsets, mode="mean")
  */
  const fp::Tensor w = randn({6, 4}, 8);
  const fp::Tensor idx = fp::tensor({5, 1, 1, 0, 3}), offsets = fp::tensor({0, 2});
  ASSERT_EQ(idx.dtype(), fp::DType::I32);
  std::vector<Summary> actual;
  for (const fp::DType dtype : {fp::DType::F64, fp::DType::F16, fp::DType::BF16}) {
    for (const char* mode : {"sum", "mean", "max"}) {
      actual.push_back(
          nn_test::summary(F::embedding_bag(idx, w.to(dtype), offsets, {.mode = mode})));
    }
  }
  EXPECT_EQ(actual, truth<std::vector<Summary>>("results"));
  const fp::Tensor strided(w.transpose(0, 1).contiguous().transpose(0, 1));
  EXPECT_SAME(F::embedding_bag(idx, strided, offsets), truth<Summary>("summary(strided)"));
}

TEST(FunctionalEmbeddingBag, BadInputSaysWhatPythonSays) {
  /*
  #|PYTHON
  w = torch.randn(10, 3)
  idx = torch.tensor([0, 2, 4, 5])
  offsets = torch.tensor([0, 2])
  two_d = torch.tensor([[1, 2], [4, 5]])
  def refusal(*args, **kw):
      try:
          F.embedding_bag(*args, **kw)
      except (ValueError, NotImplementedError) as e:
          return str(e)
  */
  const fp::Tensor w = randn({10, 3}, 1), idx = fp::tensor({0L, 2L, 4L, 5L});
  const fp::Tensor offsets = fp::tensor({0L, 2L}), two_d = fp::tensor({{1L, 2L}, {4L, 5L}});
  const auto refuses = [](const std::string& message, auto&& call) {
    EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument, "fp::functional::embedding_bag: " + message,
                          call());
  };
  const fp::Tensor short_weights = fp::ones({3});
  refuses(truth<std::string>(
              R"(refusal(idx, w, offsets, mode="sum", per_sample_weights=torch.ones(3)))"),
          [&] {
            return F::embedding_bag(idx, w, offsets,
                                    {.mode = "sum", .per_sample_weights = short_weights});
          });
  const fp::Tensor w3 = randn({2, 5, 3}, 2);
  refuses(truth<std::string>("refusal(idx, torch.randn(2, 5, 3), offsets)"),
          [&] { return F::embedding_bag(idx, w3, offsets); });
  refuses(truth<std::string>("refusal(two_d, w, offsets)"),
          [&] { return F::embedding_bag(two_d, w, offsets); });
  refuses(truth<std::string>("refusal(idx, w)"), [&] { return F::embedding_bag(idx, w); });
  const fp::Tensor offsets_2d = fp::tensor({{0L, 2L}});
  refuses(truth<std::string>("refusal(idx, w, torch.tensor([[0, 2]]))"),
          [&] { return F::embedding_bag(idx, w, offsets_2d); });
  const fp::Tensor idx_3d = fp::zeros({1, 1, 2}, fp::DType::I64);
  refuses(truth<std::string>("refusal(torch.zeros(1, 1, 2, dtype=torch.int64), w)"),
          [&] { return F::embedding_bag(idx_3d, w); });
  refuses(truth<std::string>(R"(refusal(idx, w, offsets, mode="median"))"),
          [&] { return F::embedding_bag(idx, w, offsets, {.mode = "median"}); });
  const fp::Tensor weights = fp::ones({4});
  refuses(truth<std::string>(
              R"(refusal(idx, w, offsets, mode="mean", per_sample_weights=torch.ones(4)))"),
          [&] {
            return F::embedding_bag(idx, w, offsets,
                                    {.mode = "mean", .per_sample_weights = weights});
          });
  EXPECT_TORCH_ERROR(
      truth<std::string>("message(lambda: F.embedding_bag(idx, w, offsets, padding_idx=10))"),
      F::embedding_bag(idx, w, offsets, {.padding_idx = 10}));
  const fp::Tensor out_of_range = fp::tensor({0L, 12L});
  EXPECT_TORCH_ERROR(
      truth<std::string>("message(lambda: F.embedding_bag(torch.tensor([0, 12]), w, offsets))"),
      F::embedding_bag(out_of_range, w, offsets));
}

TEST(EmbeddingBag, Layer) {
  /*
  #|PYTHON
  m = filled(nn.EmbeddingBag(10, 3, mode="sum", padding_idx=-2))
  idx = torch.tensor([0, 8, 4, 8, 4, 3, 2, 9])
  offsets = torch.tensor([0, 3, 8])
  psw = torch.randn(8, generator=g(9))
  out = m(idx, offsets, psw)
  mx = filled(nn.EmbeddingBag(10, 3, mode="max", include_last_offset=True))
  out_max = mx(idx, offsets)
  mean = filled(nn.EmbeddingBag(10, 3))
  out_mean = mean(idx.reshape(2, 4))
  fresh = nn.EmbeddingBag(5, 2, padding_idx=1)
  */
  const fp::nn::EmbeddingBag m =
      filled(fp::nn::EmbeddingBag(10, 3, {.mode = "sum", .padding_idx = -2}));
  EXPECT_EQ(keys(m), (std::vector<std::string>{"weight"}));  // #PYTHON list(m.state_dict().keys())
  EXPECT_EQ(m.padding_idx, 8);                               // #PYTHON m.padding_idx
  const fp::Tensor idx = fp::tensor({0L, 8L, 4L, 8L, 4L, 3L, 2L, 9L});
  const fp::Tensor offsets = fp::tensor({0L, 3L, 8L});
  const fp::Tensor psw = randn({8}, 9);
  EXPECT_SAME(m(idx, offsets, psw), truth<Summary>("summary(out)"));
  const fp::nn::EmbeddingBag mx =
      filled(fp::nn::EmbeddingBag(10, 3, {.mode = "max", .include_last_offset = true}));
  EXPECT_SAME(mx(idx, offsets), truth<Summary>("summary(out_max)"));
  const fp::nn::EmbeddingBag mean = filled(fp::nn::EmbeddingBag(10, 3));
  EXPECT_SAME(mean(idx.reshape({2, 4})), truth<Summary>("summary(out_mean)"));
  // A new layer's padding row is zero, as PyTorch's.
  const fp::nn::EmbeddingBag fresh(5, 2, {.padding_idx = 1});
  EXPECT_EQ(nn_test::values(fresh.weight.i(1)),
            truth<std::vector<float>>("values(fresh.weight[1])"));
}

TEST(EmbeddingBag, FromPretrained) {
  /*
  #|PYTHON
  weights = torch.randn(4, 3, generator=g(10)).double()
  m = nn.EmbeddingBag.from_pretrained(weights, mode="max", padding_idx=0)
  out = m(torch.tensor([[0, 1], [2, 0]]))
  */
  const fp::Tensor weights = randn({4, 3}, 10).to(fp::DType::F64);
  const fp::nn::EmbeddingBag m =
      fp::nn::EmbeddingBag::from_pretrained(weights, {.mode = "max", .padding_idx = 0});
  EXPECT_EQ(m.num_embeddings, 4);
  EXPECT_EQ(m.embedding_dim, 3);
  EXPECT_EQ(m.weight.dtype(), fp::DType::F64);
  const fp::Tensor input = fp::tensor({{0L, 1L}, {2L, 0L}});
  EXPECT_SAME(m(input), truth<Summary>("summary(out)"));
  const fp::Tensor flat = randn({4}, 1);
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::BadArgument,
      "fp::nn::EmbeddingBag: " +
          truth<std::string>("message(lambda: nn.EmbeddingBag.from_pretrained(torch.randn(4)))"),
      fp::nn::EmbeddingBag::from_pretrained(flat));
  EXPECT_FP_ERROR_EXACT(
      fp::ErrorCode::BadArgument,
      "fp::nn::EmbeddingBag: " +
          truth<std::string>("message(lambda: nn.EmbeddingBag(4, 3, padding_idx=4))"),
      fp::nn::EmbeddingBag(4, 3, {.padding_idx = 4}));
}

TEST(Distance, CosineSimilarityAndPairwiseDistance) {
  /*
  #|PYTHON
  x1 = torch.randn(4, 5, generator=g(11))
  x2 = torch.randn(4, 5, generator=g(12))
  row = torch.randn(5, generator=g(13))
  results = [summary(F.pairwise_distance(x1, x2, p=p)) for p in (2.0, 1.0, 3.5, 0.0, float("inf"), -1.0)]
  keep = F.pairwise_distance(x1.double(), x2.double(), p=1.5, eps=1e-3, keepdim=True)
  broadcast = F.pairwise_distance(x1, row)
  unbatched = nn.PairwiseDistance(p=3.0)(row, x2[0])
  strided = nn.PairwiseDistance()(x1.transpose(0, 1).contiguous().transpose(0, 1), x2)
  cos = nn.CosineSimilarity()(x1, x2)
  cos0 = nn.CosineSimilarity(dim=0, eps=0.5)(x1.double(), x2.double())
  cos_broadcast = F.cosine_similarity(x1, row, dim=-1)
  cos_half = F.cosine_similarity(x1.bfloat16(), x2.bfloat16())
  */
  const fp::Tensor x1 = randn({4, 5}, 11), x2 = randn({4, 5}, 12), row = randn({5}, 13);
  std::vector<Summary> actual;
  for (const double p : {2.0, 1.0, 3.5, 0.0, kInfinity, -1.0})
    actual.push_back(nn_test::summary(F::pairwise_distance(x1, x2, {.p = p})));
  EXPECT_EQ(actual, truth<std::vector<Summary>>("results"));
  EXPECT_SAME(F::pairwise_distance(x1.to(fp::DType::F64), x2.to(fp::DType::F64),
                                   {.p = 1.5, .eps = 1e-3, .keepdim = true}),
              truth<Summary>("summary(keep)"));
  EXPECT_SAME(F::pairwise_distance(x1, row), truth<Summary>("summary(broadcast)"));
  const fp::nn::PairwiseDistance cubic({.p = 3.0});
  EXPECT_SAME(cubic(row, x2.i(0)), truth<Summary>("summary(unbatched)"));
  const fp::Tensor strided(x1.transpose(0, 1).contiguous().transpose(0, 1));
  EXPECT_SAME(fp::nn::PairwiseDistance()(strided, x2), truth<Summary>("summary(strided)"));
  const fp::nn::CosineSimilarity cos;
  EXPECT_SAME(cos(x1, x2), truth<Summary>("summary(cos)"));
  const fp::nn::CosineSimilarity cos0({.dim = 0, .eps = 0.5});
  EXPECT_SAME(cos0(x1.to(fp::DType::F64), x2.to(fp::DType::F64)), truth<Summary>("summary(cos0)"));
  EXPECT_SAME(F::cosine_similarity(x1, row, {.dim = -1}), truth<Summary>("summary(cos_broadcast)"));
  EXPECT_SAME(F::cosine_similarity(x1.to(fp::DType::BF16), x2.to(fp::DType::BF16)),
              truth<Summary>("summary(cos_half)"));
  EXPECT_TRUE(keys(cos).empty());
  EXPECT_TRUE(keys(cubic).empty());
  const fp::Tensor other = randn({3, 5}, 14);
  EXPECT_TORCH_ERROR(
      truth<std::string>("message(lambda: F.pairwise_distance(x1, torch.randn(3, 5)))"),
      cubic(x1, other));
  EXPECT_TORCH_ERROR(
      truth<std::string>("message(lambda: F.cosine_similarity(x1, torch.randn(3, 5)))"),
      cos(x1, other));
}

TEST(Distance, Pdist) {
  /*
  #|PYTHON
  x = torch.randn(5, 3, generator=g(15))
  results = [summary(F.pdist(x, p)) for p in (2.0, 1.0, 0.0, 1.5, float("inf"))]
  double = F.pdist(x.double(), 3.0)
  strided = F.pdist(x.transpose(0, 1).contiguous().transpose(0, 1))
  */
  const fp::Tensor x = randn({5, 3}, 15);
  std::vector<Summary> actual;
  for (const double p : {2.0, 1.0, 0.0, 1.5, kInfinity})
    actual.push_back(nn_test::summary(F::pdist(x, {.p = p})));
  EXPECT_EQ(actual, truth<std::vector<Summary>>("results"));
  EXPECT_SAME(F::pdist(x.to(fp::DType::F64), {.p = 3.0}), truth<Summary>("summary(double)"));
  const fp::Tensor strided(x.transpose(0, 1).contiguous().transpose(0, 1));
  EXPECT_SAME(F::pdist(strided), truth<Summary>("summary(strided)"));
  const fp::Tensor cube = randn({2, 2, 2}, 16);
  EXPECT_TORCH_ERROR(truth<std::string>("message(lambda: F.pdist(torch.randn(2, 2, 2)))"),
                     F::pdist(cube));
  EXPECT_TORCH_ERROR(truth<std::string>("message(lambda: F.pdist(x, -1.0))"),
                     F::pdist(x, {.p = -1.0}));
}

TEST(FunctionalOneHot, AgainstPython) {
  /*
  #|PYTHON
  labels = torch.tensor([[0, 3], [2, 1]])
  */
  const fp::Tensor labels = fp::tensor({{0L, 3L}, {2L, 1L}});
  EXPECT_SAME(F::one_hot(labels), truth<Summary>("summary(F.one_hot(labels))"));
  EXPECT_SAME(F::one_hot(labels, 6), truth<Summary>("summary(F.one_hot(labels, 6))"));
  EXPECT_EQ(F::one_hot(labels).dtype(), fp::DType::I64);  // #PYTHON F.one_hot(labels).dtype
  const fp::Tensor floats = fp::tensor({0.0f, 1.0f});
  EXPECT_TORCH_ERROR(truth<std::string>("message(lambda: F.one_hot(torch.tensor([0.0, 1.0])))"),
                     F::one_hot(floats));
  EXPECT_TORCH_ERROR(truth<std::string>("message(lambda: F.one_hot(labels, 3))"),
                     F::one_hot(labels, 3));
}

TEST(Unflatten, Layer) {
  /*
  #|PYTHON
  x = torch.randn(3, 6, 2, generator=g(17))
  out = nn.Unflatten(1, (2, -1))(x)
  last = nn.Unflatten(-1, (1, 3))(x.transpose(0, 2))
  */
  const fp::Tensor x = randn({3, 6, 2}, 17);
  const fp::nn::Unflatten unflatten(1, {2, -1});
  EXPECT_SAME(unflatten(x), truth<Summary>("summary(out)"));
  const fp::nn::Unflatten last(-1, {1, 3});
  EXPECT_SAME(last(x.transpose(0, 2)), truth<Summary>("summary(last)"));
  const fp::nn::Unflatten wrong(1, {4, 2});
  EXPECT_TORCH_ERROR(truth<std::string>("message(lambda: nn.Unflatten(1, (4, 2))(x))"), wrong(x));
}

struct Scales : fp::nn::Module {
  fp::nn::ParameterList pl{{fp::ones({2}), fp::Tensor(), fp::zeros({3})}};
  fp::nn::ParameterDict pd{{"right", fp::ones({1})}, {"left", fp::zeros({2})}};
  FP_MODULE(pl, pd)
};

TEST(ParameterContainers, KeysAsPython) {
  /*
  #|PYTHON
  from collections import OrderedDict
  class Scales(nn.Module):
      def __init__(self):
          super().__init__()
          self.pl = nn.ParameterList([torch.ones(2), None, torch.zeros(3)])
          self.pd = nn.ParameterDict(OrderedDict([("right", torch.ones(1)), ("left", torch.zeros(2))]))
  m = filled(Scales())
  */
  Scales m;
  EXPECT_EQ(keys(m), (std::vector<std::string>{"pl.0", "pl.2", "pd.right",
                                               "pd.left"}));  // #PYTHON list(m.state_dict().keys())
  m.load_state_dict(nn_test::filled(m));
  EXPECT_EQ(nn_test::values(m.pl[-1]), truth<std::vector<float>>("values(m.pl[-1])"));
  EXPECT_EQ(nn_test::values(m.pd["left"]), truth<std::vector<float>>(R"(values(m.pd["left"]))"));
  EXPECT_EQ(static_cast<int>(m.pl.size()), 3);  // #PYTHON len(m.pl)
  EXPECT_FALSE(m.pl[1].is_defined());
  EXPECT_EQ(m.pd.keys(), (std::vector<std::string>{"right", "left"}));  // #PYTHON list(m.pd.keys())
  m.pd.insert("right", fp::full({1}, 5.0f));  // replaced in its place, as `pd["right"] = ...`
  m.pd.insert("extra", fp::ones({1}));
  EXPECT_EQ(m.pd.keys(), (std::vector<std::string>{"right", "left", "extra"}));
  EXPECT_EQ(m.pd["right"].item<float>(), 5.0f);
  const fp::Tensor left = m.pd.take("left");
  EXPECT_EQ(left.numel(), 2);
  EXPECT_FALSE(m.pd.contains("left"));
  m.pl.push(fp::ones({4}));
  EXPECT_EQ(keys(m), (std::vector<std::string>{"pl.0", "pl.2", "pl.3", "pd.right", "pd.extra"}));
}

TEST(ParameterContainers, BadInput) {
  /*
  #|PYTHON
  d = nn.ParameterDict()
  def key_error(key):
      try:
          d[key] = torch.ones(1)
      except KeyError as e:
          return e.args[0]
  */
  fp::nn::ParameterList list({fp::ones({1})});
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::nn::ParameterList: index 1 is out of range", list[1]);
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::nn::ParameterList: index -2 is out of range", list[-2]);
  fp::nn::ParameterDict dict;
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::nn::ParameterDict: " + truth<std::string>(R"(key_error("a.b"))"),
                        dict.insert("a.b", fp::ones({1})));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::nn::ParameterDict: " + truth<std::string>(R"(key_error(""))"),
                        dict.insert("", fp::ones({1})));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::nn::ParameterDict: no parameter named \"missing\"", dict["missing"]);
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                        "fp::nn::ParameterDict: no parameter named \"missing\"",
                        dict.take("missing"));
}

}  // namespace
