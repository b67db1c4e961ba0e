// fp::functional embedding, one_hot, scaled_dot_product_attention,
// cosine_similarity and dropout against torch.nn.functional.
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

TEST(FunctionalSparse, Embedding) {
  /*
  #|PYTHON
  w = torch.randn(5, 3, generator=g(1))
  i = torch.tensor([[0, 4], [2, 2]])
  r = F.embedding(i, w, padding_idx=-1)
  */
  const fp::Tensor w = randn({5, 3}, 1);
  const fp::Tensor i = fp::tensor({{int64_t{0}, int64_t{4}}, {int64_t{2}, int64_t{2}}});
  const fp::Tensor r = F::embedding(i, w, {.padding_idx = -1});
  EXPECT_EQ(shape(r), (std::vector<int64_t>{2, 2, 3}));  // #PYTHON list(r.shape)
  EXPECT_PYTHON(values(r), truth<std::vector<float>>("values(r)"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::functional::embedding: Padding_idx must be within num_embeddings",
                  F::embedding(i, w, {.padding_idx = 5}));
  const fp::Tensor out_of_range = fp::tensor({int64_t{7}});
  EXPECT_TORCH_ERROR("index out of range in self", F::embedding(out_of_range, w));
}

TEST(FunctionalSparse, OneHot) {
  /*
  #|PYTHON
  i = torch.tensor([3, 0, 1])
  */
  const fp::Tensor i = fp::tensor({int64_t{3}, int64_t{0}, int64_t{1}});
  EXPECT_EQ(
      F::one_hot(i).to_vector<int64_t>(),
      (std::vector<int64_t>{0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0}));  // #PYTHON values(F.one_hot(i))
  EXPECT_EQ(shape(F::one_hot(i, 6)),
            (std::vector<int64_t>{3, 6}));  // #PYTHON list(F.one_hot(i, 6).shape)
  EXPECT_TORCH_ERROR("Class values must be smaller than num_classes.", F::one_hot(i, 2));
}

TEST(FunctionalAttention, ScaledDotProductAttention) {
  /*
  #|PYTHON
  q = torch.randn(2, 2, 3, 4, generator=g(2))
  k = torch.randn(2, 2, 5, 4, generator=g(3))
  v = torch.randn(2, 2, 5, 6, generator=g(4))
  m = torch.randn(3, 5, generator=g(5))
  keep = torch.tensor([[True, False, True, True, False]] * 3)
  */
  const fp::Tensor q = randn({2, 2, 3, 4}, 2), k = randn({2, 2, 5, 4}, 3),
                   v = randn({2, 2, 5, 6}, 4);
  const fp::Tensor m = randn({3, 5}, 5);
  const fp::Tensor plain = F::scaled_dot_product_attention(q, k, v);
  EXPECT_EQ(shape(plain),
            (std::vector<int64_t>{
                2, 2, 3, 6}));  // #PYTHON list(F.scaled_dot_product_attention(q, k, v).shape)
  EXPECT_PYTHON(values(plain),
                truth<std::vector<float>>("values(F.scaled_dot_product_attention(q, k, v))"));
  EXPECT_PYTHON(values(F::scaled_dot_product_attention(q, k, v, {.attn_mask = m, .scale = 0.3})),
                truth<std::vector<float>>(
                    "values(F.scaled_dot_product_attention(q, k, v, attn_mask=m, scale=0.3))"));
  const fp::Tensor square_k = randn({2, 2, 3, 4}, 3), square_v = randn({2, 2, 3, 6}, 4);
  /*
  #|PYTHON
  sk = torch.randn(2, 2, 3, 4, generator=g(3))
  sv = torch.randn(2, 2, 3, 6, generator=g(4))
  */
  EXPECT_PYTHON(values(F::scaled_dot_product_attention(q, square_k, square_v, {.is_causal = true})),
                truth<std::vector<float>>(
                    "values(F.scaled_dot_product_attention(q, sk, sv, is_causal=True))"));
  std::vector<bool> keep_values;
  for (int row = 0; row < 3; ++row)
    keep_values.insert(keep_values.end(), {true, false, true, true, false});
  const fp::Tensor keep = fp::dispatch<fp::Tensor>("aten::reshape", "", fp::tensor(keep_values),
                                                   std::vector<int64_t>{3, 5});
  EXPECT_PYTHON(
      values(F::scaled_dot_product_attention(q, k, v, {.attn_mask = keep})),
      truth<std::vector<float>>("values(F.scaled_dot_product_attention(q, k, v, attn_mask=keep))"));
  const fp::Tensor short_k = randn({2, 2, 5, 3}, 3);
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::scaled_dot_product_attention",
                  F::scaled_dot_product_attention(q, short_k, v));
}

TEST(FunctionalDistance, CosineSimilarity) {
  /*
  #|PYTHON
  a = torch.randn(3, 4, generator=g(6))
  b = torch.randn(1, 4, generator=g(7))
  */
  const fp::Tensor a = randn({3, 4}, 6), b = randn({1, 4}, 7);
  EXPECT_PYTHON(values(F::cosine_similarity(a, b)),
                truth<std::vector<float>>("values(F.cosine_similarity(a, b))"));
  const fp::Tensor other = randn({3, 5}, 8);
  EXPECT_FP_ERROR(fp::ErrorCode::TorchError, "aten::cosine_similarity",
                  F::cosine_similarity(a, other));
  EXPECT_PYTHON(values(F::cosine_similarity(a, a, {.dim = 0, .eps = 0.1})),
                truth<std::vector<float>>("values(F.cosine_similarity(a, a, dim=0, eps=0.1))"));
}

TEST(FunctionalDropout, IdentityInEvalScaledInTraining) {
  const fp::Tensor x = randn({4, 50}, 8);
  EXPECT_EQ(values(F::dropout(x, {.training = false})), values(x));
  // Training mode draws from libtorch's generator: each element is 0 or x / (1 - p).
  const auto kept = values(F::dropout(x, {.p = 0.25}));
  const auto original = values(x);
  std::size_t zeros = 0;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (kept[i] == 0.f) {
      ++zeros;
    } else {
      EXPECT_FLOAT_EQ(kept[i], original[i] / 0.75f);
    }
  }
  EXPECT_GT(zeros, 10u);
  EXPECT_LT(zeros, 90u);
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "fp::functional::dropout: dropout probability has to be between 0 and 1, but got 1.5",
      F::dropout(x, {.p = 1.5}));
}

}  // namespace
