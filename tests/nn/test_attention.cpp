// fp::nn::MultiheadAttention against torch.nn.MultiheadAttention: keys,
// every in-projection path (self, encoder-decoder, separate), with and
// without weights, masks, bias_kv, zero attention, batch_first, unbatched,
// and whether PyTorch's fast path is taken (test_multi_head_attention_forward.cpp:
// the function itself).
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include <limits>

#include "nn/helpers.h"
#include "nn/summary.h"
#include "support/expect_error.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import torch.nn as nn
from truth_helpers import g, values, filled, message
import torch.nn.functional as F
# Inference as flash_powder runs it: no autograd, and PyTorch's fused fast path
# (torch._native_multi_head_attention) where it takes it, as by default
# (another file's block may have turned it off for the process). The tests
# here are mostly outside its conditions; test_transformer.cpp tests it.
torch.backends.mha.set_fastpath_enabled(True)
torch.set_grad_enabled(False)
*/

namespace {

using fp_test::truth;

using fp::nn::MultiheadAttention;
using nn_test::keys;
using nn_test::randn;
using nn_test::shape;
using nn_test::Summary;
using nn_test::values;

MultiheadAttention filled(std::int64_t embed_dim, std::int64_t heads,
                          const fp::nn::MultiheadAttentionOptions& options = {}) {
  MultiheadAttention attention(embed_dim, heads, options);
  attention.load_state_dict(nn_test::filled(attention));
  return attention;
}

TEST(MultiheadAttention, SelfAttentionWithWeights) {
  /*
  #|PYTHON
  m = filled(nn.MultiheadAttention(8, 2))
  x = torch.randn(3, 2, 8, generator=g(1))
  out, w = m(x, x, x)
  _, per_head = m(x, x, x, average_attn_weights=False)
  */
  const MultiheadAttention m = filled(8, 2);
  EXPECT_EQ(keys(m),
            (std::vector<std::string>{"in_proj_weight", "in_proj_bias", "out_proj.weight",
                                      "out_proj.bias"}));  // #PYTHON list(m.state_dict().keys())
  const fp::Tensor x = randn({3, 2, 8}, 1);
  auto [out, w] = m.forward(x, x, x);
  EXPECT_EQ(shape(out), (std::vector<int64_t>{3, 2, 8}));  // #PYTHON list(out.shape)
  EXPECT_PYTHON(values(out), truth<std::vector<float>>("values(out)"));
  EXPECT_EQ(shape(w), (std::vector<int64_t>{2, 3, 3}));  // #PYTHON list(w.shape)
  EXPECT_PYTHON(values(w), truth<std::vector<float>>("values(w)"));
  auto [same_out, per_head] = m.forward(x, x, x, {.average_attn_weights = false});
  EXPECT_EQ(shape(per_head), (std::vector<int64_t>{2, 2, 3, 3}));  // #PYTHON list(per_head.shape)
  EXPECT_PYTHON(values(per_head), truth<std::vector<float>>("values(per_head)"));
}

TEST(MultiheadAttention, EncoderDecoderAndSeparateInputs) {
  /*
  #|PYTHON
  m = filled(nn.MultiheadAttention(6, 3))
  q = torch.randn(2, 1, 6, generator=g(2))
  kv = torch.randn(4, 1, 6, generator=g(3))
  k = torch.randn(4, 1, 6, generator=g(4))
  shared, _ = m(q, kv, kv)
  separate, w = m(q, k, kv)
  */
  const MultiheadAttention m = filled(6, 3);
  const fp::Tensor q = randn({2, 1, 6}, 2), kv = randn({4, 1, 6}, 3), k = randn({4, 1, 6}, 4);
  EXPECT_PYTHON(values(std::get<0>(m.forward(q, kv, kv))),
                truth<std::vector<float>>("values(shared)"));
  auto [separate, w] = m.forward(q, k, kv);
  EXPECT_PYTHON(values(separate), truth<std::vector<float>>("values(separate)"));
  EXPECT_PYTHON(values(w), truth<std::vector<float>>("values(w)"));
}

TEST(MultiheadAttention, WithoutWeightsUsesScaledDotProductAttention) {
  /*
  #|PYTHON
  m = filled(nn.MultiheadAttention(8, 4, batch_first=True))
  x = torch.randn(2, 3, 8, generator=g(5))
  mask = torch.randn(3, 3, generator=g(6))
  out, none = m(x, x, x, need_weights=False, attn_mask=mask)
  causal = torch.nn.Transformer.generate_square_subsequent_mask(3)
  out_causal, _ = m(x, x, x, need_weights=False, attn_mask=causal, is_causal=True)
  */
  const MultiheadAttention m = filled(8, 4, {.batch_first = true});
  const fp::Tensor x = randn({2, 3, 8}, 5), mask = randn({3, 3}, 6);
  auto [out, none] = m.forward(x, x, x, {.need_weights = false, .attn_mask = mask});
  EXPECT_FALSE(none.is_defined());
  EXPECT_EQ(shape(out), (std::vector<int64_t>{2, 3, 8}));  // #PYTHON list(out.shape)
  EXPECT_PYTHON(values(out), truth<std::vector<float>>("values(out)"));
  const float inf = std::numeric_limits<float>::infinity();
  const fp::Tensor causal = fp::tensor({{0.f, -inf, -inf}, {0.f, 0.f, -inf}, {0.f, 0.f, 0.f}});
  auto [out_causal, unused] =
      m.forward(x, x, x, {.need_weights = false, .attn_mask = causal, .is_causal = true});
  EXPECT_PYTHON(values(out_causal), truth<std::vector<float>>("values(out_causal)"));
}

TEST(MultiheadAttention, Masks) {
  /*
  #|PYTHON
  m = filled(nn.MultiheadAttention(4, 2))
  q = torch.randn(3, 2, 4, generator=g(7))
  kv = torch.randn(5, 2, 4, generator=g(8))
  float_mask = torch.randn(3, 5, generator=g(9))
  padding = torch.tensor([[False, False, True, False, True], [False, True, False, False, False]])
  blocked = torch.tensor([[False, True, False, False, False]] * 3)
  out1, w1 = m(q, kv, kv, attn_mask=float_mask)
  out2, w2 = m(q, kv, kv, attn_mask=blocked, key_padding_mask=padding)
  out3, _ = m(q, kv, kv, attn_mask=float_mask, key_padding_mask=padding, need_weights=False)
  */
  const MultiheadAttention m = filled(4, 2);
  const fp::Tensor q = randn({3, 2, 4}, 7), kv = randn({5, 2, 4}, 8);
  const fp::Tensor float_mask = randn({3, 5}, 9);
  const fp::Tensor padding =
      fp::tensor({{false, false, true, false, true}, {false, true, false, false, false}});
  const fp::Tensor blocked = fp::tensor({{false, true, false, false, false},
                                         {false, true, false, false, false},
                                         {false, true, false, false, false}});
  auto [out1, w1] = m.forward(q, kv, kv, {.attn_mask = float_mask});
  EXPECT_PYTHON(values(out1), truth<std::vector<float>>("values(out1)"));
  EXPECT_PYTHON(values(w1), truth<std::vector<float>>("values(w1)"));
  auto [out2, w2] = m.forward(q, kv, kv, {.key_padding_mask = padding, .attn_mask = blocked});
  EXPECT_PYTHON(values(out2), truth<std::vector<float>>("values(out2)"));
  EXPECT_PYTHON(values(w2), truth<std::vector<float>>("values(w2)"));
  auto [out3, none] = m.forward(
      q, kv, kv, {.key_padding_mask = padding, .need_weights = false, .attn_mask = float_mask});
  EXPECT_PYTHON(values(out3), truth<std::vector<float>>("values(out3)"));
}

TEST(MultiheadAttention, KdimVdimBiasKvZeroAttn) {
  /*
  #|PYTHON
  m = filled(nn.MultiheadAttention(4, 2, kdim=3, vdim=5, add_bias_kv=True, add_zero_attn=True))
  q = torch.randn(2, 1, 4, generator=g(10))
  k = torch.randn(3, 1, 3, generator=g(11))
  v = torch.randn(3, 1, 5, generator=g(12))
  padding = torch.tensor([[False, True, False]])
  out, w = m(q, k, v, key_padding_mask=padding)
  out2, _ = m(q, k, v, need_weights=False)
  */
  const MultiheadAttention m =
      filled(4, 2, {.add_bias_kv = true, .add_zero_attn = true, .kdim = 3, .vdim = 5});
  EXPECT_EQ(keys(m),
            (std::vector<std::string>{"q_proj_weight", "k_proj_weight", "v_proj_weight",
                                      "in_proj_bias", "bias_k", "bias_v", "out_proj.weight",
                                      "out_proj.bias"}));  // #PYTHON list(m.state_dict().keys())
  const fp::Tensor q = randn({2, 1, 4}, 10), k = randn({3, 1, 3}, 11), v = randn({3, 1, 5}, 12);
  const fp::Tensor padding = fp::tensor({{false, true, false}});
  auto [out, w] = m.forward(q, k, v, {.key_padding_mask = padding});
  EXPECT_PYTHON(values(out), truth<std::vector<float>>("values(out)"));
  EXPECT_EQ(shape(w), (std::vector<int64_t>{1, 2, 5}));  // #PYTHON list(w.shape)
  EXPECT_PYTHON(values(w), truth<std::vector<float>>("values(w)"));
  EXPECT_PYTHON(values(std::get<0>(m.forward(q, k, v, {.need_weights = false}))),
                truth<std::vector<float>>("values(out2)"));
}

TEST(MultiheadAttention, UnbatchedAndNoBias) {
  /*
  #|PYTHON
  m = filled(nn.MultiheadAttention(4, 1, bias=False))
  x = torch.randn(3, 4, generator=g(13))
  out, w = m(x, x, x)
  */
  const MultiheadAttention m = filled(4, 1, {.bias = false});
  EXPECT_EQ(keys(m),
            (std::vector<std::string>{"in_proj_weight",
                                      "out_proj.weight"}));  // #PYTHON list(m.state_dict().keys())
  const fp::Tensor x = randn({3, 4}, 13);
  auto [out, w] = m.forward(x, x, x);
  EXPECT_EQ(shape(out), (std::vector<int64_t>{3, 4}));  // #PYTHON list(out.shape)
  EXPECT_PYTHON(values(out), truth<std::vector<float>>("values(out)"));
  EXPECT_PYTHON(values(w), truth<std::vector<float>>("values(w)"));
}

// batch_first inputs reach the projections transposed (not contiguous), where
// PyTorch's matmul folds them into a matrix and adds the bias after mm; at a
// width of 256 that rounds differently from addmm's fused bias.
TEST(MultiheadAttention, WideBatchFirstCrossAttention) {
  /*
  #|PYTHON
  m = filled(nn.MultiheadAttention(256, 4, batch_first=True), scale=0.1)
  x = torch.randn(2, 7, 256, generator=g(40))
  y = torch.randn(2, 9, 256, generator=g(41))
  out, w = m(x, y, y)
  out_sdpa, _ = m(x, y, y, need_weights=False)
  linear = filled(nn.Linear(256, 32))
  projected = linear(x.transpose(0, 1))
  */
  MultiheadAttention m(256, 4, {.batch_first = true});
  m.load_state_dict(nn_test::filled(m, 100, 0.1f));
  const fp::Tensor x = randn({2, 7, 256}, 40), y = randn({2, 9, 256}, 41);
  auto [out, w] = m(x, y, y);
  EXPECT_PYTHON(values(out), truth<std::vector<float>>("values(out)"));
  EXPECT_PYTHON(values(w), truth<std::vector<float>>("values(w)"));
  auto [out_sdpa, none] = m.forward(x, y, y, {.need_weights = false});
  EXPECT_PYTHON(values(out_sdpa), truth<std::vector<float>>("values(out_sdpa)"));
  fp::nn::Linear linear(256, 32);
  linear.load_state_dict(nn_test::filled(linear));
  EXPECT_PYTHON(values(linear(x.transpose(0, 1))), truth<std::vector<float>>("values(projected)"));
}

TEST(MultiheadAttention, BadInputSaysHowToCallIt) {
  const MultiheadAttention m(4, 2);
  const fp::Tensor x = randn({3, 2, 4}, 1), wrong = randn({3, 2, 6}, 2), flat = randn({3, 4}, 3);
  // It takes a query, a key and a value: m(x) with one tensor does not compile.
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::MultiheadAttention: was expecting embedding dimension of 4, but got 6",
                  m.forward(wrong, wrong, wrong));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found 2-D "
                  "and 2-D tensors respectively",
                  m.forward(x, flat, flat));
  const fp::Tensor mask = randn({2, 2}, 4);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "The shape of the 2D attn_mask is torch.Size([2, 2]), but should be (3, 3).",
                  m.forward(x, x, x, {.attn_mask = mask}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::nn::MultiheadAttention: embed_dim must be divisible by num_heads",
                  MultiheadAttention(5, 2));
}

/*
#|PYTHON_GLOBAL
def summary(t):
    return [[float(s) for s in t.shape], [float(s) for s in t.stride()], values(t)]
def attend(m, q, k, v, **kw):
    """[[1.0 if PyTorch took its fast path else 0.0], summary(output), summary(weights)...]."""
    calls = []
    fused = torch._native_multi_head_attention
    def spy(*args, **kwargs):
        calls.append(True)
        return fused(*args, **kwargs)
    torch._native_multi_head_attention = spy
    try:
        out, w = m(q, k, v, **kw)
    finally:
        torch._native_multi_head_attention = fused
    return [[1.0 if calls else 0.0]] + summary(out) + ([] if w is None else summary(w))
*/

/// What Python's attend() above gives: whether the fast path is taken, the
/// output's summary and the weights' (if any).
Summary attend(const MultiheadAttention& m, fp::TensorView q, fp::TensorView k, fp::TensorView v,
               const fp::nn::MultiheadAttentionForwardOptions& options = {}) {
  const bool fast = m.why_not_fast_path(q, k, v, options).empty();
  auto [out, w] = m.forward(q, k, v, options);
  Summary result{{fast ? 1.0 : 0.0}};
  for (const auto& part : nn_test::summary(out))
    result.push_back(part);
  if (w.is_defined()) {
    for (const auto& part : nn_test::summary(w))
      result.push_back(part);
  }
  return result;
}

TEST(MultiheadAttention, EveryOptionAndFastPathAsPython) {
  /*
  #|PYTHON
  MHA = nn.MultiheadAttention
  x = torch.randn(2, 3, 8, generator=g(20))
  q = torch.randn(2, 2, 8, generator=g(21))
  k = torch.randn(2, 4, 8, generator=g(22))
  v = torch.randn(2, 4, 8, generator=g(23))
  k5 = torch.randn(2, 4, 5, generator=g(24))
  v3 = torch.randn(2, 4, 3, generator=g(25))
  u = torch.randn(3, 8, generator=g(26))
  uq, uk, uv = torch.randn(2, 8, generator=g(27)), torch.randn(4, 5, generator=g(28)), torch.randn(4, 3, generator=g(29))
  self_bool = torch.tensor([[False, True, False], [False, False, True], [True, False, False]])
  self_float = torch.randn(3, 3, generator=g(30))
  self_padding = torch.tensor([[False, False, True], [True, False, False]])
  cross_float = torch.randn(2, 4, generator=g(31))
  cross_padding = torch.tensor([[False, True, False, False], [False, False, False, True]])
  cross_3d = torch.randn(4, 2, 4, generator=g(32))
  causal = nn.Transformer.generate_square_subsequent_mask(3)
  xd = x.double()  # one tensor: query is key is value
  first = dict(batch_first=True)
  results = [
      attend(filled(MHA(8, 2, **first)), x, x, x),
      attend(filled(MHA(8, 2, **first)), x, x, x, need_weights=False),
      attend(filled(MHA(8, 2, **first)), x, x, x, average_attn_weights=False),
      attend(filled(MHA(8, 2, **first)), x, x, x, attn_mask=self_bool),
      attend(filled(MHA(8, 2, **first)), x, x, x, key_padding_mask=self_padding, need_weights=False),
      attend(filled(MHA(8, 2, **first)), x, x, x, attn_mask=self_float),
      attend(filled(MHA(8, 2, add_bias_kv=True, **first)), x, x, x, key_padding_mask=self_padding),
      attend(filled(MHA(8, 2, add_bias_kv=True, **first)), x, x, x, attn_mask=self_bool, need_weights=False),
      attend(filled(MHA(8, 2, add_zero_attn=True, **first)), x, x, x, average_attn_weights=False),
      attend(filled(MHA(8, 2, add_zero_attn=True, **first)), x, x, x, key_padding_mask=self_padding, need_weights=False),
      attend(filled(MHA(8, 2, add_bias_kv=True, add_zero_attn=True, **first)), q, k, v, attn_mask=cross_float),
      attend(filled(MHA(8, 2, kdim=5, vdim=3, **first)), q, k5, v3),
      attend(filled(MHA(8, 2, kdim=5, vdim=3, **first)), q, k5, v3, key_padding_mask=cross_padding, need_weights=False),
      attend(filled(MHA(8, 2, kdim=5, vdim=3, **first)), q, k5, v3, attn_mask=cross_3d, average_attn_weights=False),
      attend(filled(MHA(8, 2, kdim=8, vdim=8, **first)), x, x, x),
      attend(filled(MHA(8, 2, bias=False, **first)), x, x, x),
      attend(filled(MHA(8, 1, **first)), x, x, x),
      attend(filled(MHA(8, 2)), x, x, x),
      attend(filled(MHA(8, 2, **first)), u, u, u, average_attn_weights=False),
      attend(filled(MHA(8, 2, kdim=5, vdim=3)), uq, uk, uv, need_weights=False),
      attend(filled(MHA(8, 2, dtype=torch.float64, **first)), xd, xd, xd),
      attend(filled(MHA(8, 2, add_bias_kv=True, dtype=torch.float64, **first)), q.double(), k.double(), v.double()),
      attend(filled(MHA(8, 2, **first)), q, k, v),
      attend(filled(MHA(8, 2, **first)), x, x, x, attn_mask=causal, is_causal=True, need_weights=False),
  ]
  */
  const fp::Tensor x = randn({2, 3, 8}, 20), q = randn({2, 2, 8}, 21), k = randn({2, 4, 8}, 22),
                   v = randn({2, 4, 8}, 23), k5 = randn({2, 4, 5}, 24), v3 = randn({2, 4, 3}, 25),
                   u = randn({3, 8}, 26), uq = randn({2, 8}, 27), uk = randn({4, 5}, 28),
                   uv = randn({4, 3}, 29);
  const fp::Tensor self_bool =
      fp::tensor({{false, true, false}, {false, false, true}, {true, false, false}});
  const fp::Tensor self_float = randn({3, 3}, 30);
  const fp::Tensor self_padding = fp::tensor({{false, false, true}, {true, false, false}});
  const fp::Tensor cross_float = randn({2, 4}, 31);
  const fp::Tensor cross_padding =
      fp::tensor({{false, true, false, false}, {false, false, false, true}});
  const fp::Tensor cross_3d = randn({4, 2, 4}, 32);
  const fp::Tensor causal = fp::nn::Transformer::generate_square_subsequent_mask(3);
  const auto mha = [](std::int64_t heads, fp::nn::MultiheadAttentionOptions options) {
    return filled(8, heads, options);
  };
  const fp::nn::MultiheadAttentionOptions first{.batch_first = true};
  const fp::nn::MultiheadAttentionOptions bias_kv{.add_bias_kv = true, .batch_first = true};
  const fp::nn::MultiheadAttentionOptions zero{.add_zero_attn = true, .batch_first = true};
  const fp::nn::MultiheadAttentionOptions dims{.kdim = 5, .vdim = 3, .batch_first = true};
  const fp::Tensor xd = x.to(fp::DType::F64), qd = q.to(fp::DType::F64), kd = k.to(fp::DType::F64),
                   vd = v.to(fp::DType::F64);
  const std::vector<Summary> actual = {
      attend(mha(2, first), x, x, x),
      attend(mha(2, first), x, x, x, {.need_weights = false}),
      attend(mha(2, first), x, x, x, {.average_attn_weights = false}),
      attend(mha(2, first), x, x, x, {.attn_mask = self_bool}),
      attend(mha(2, first), x, x, x, {.key_padding_mask = self_padding, .need_weights = false}),
      attend(mha(2, first), x, x, x, {.attn_mask = self_float}),
      attend(mha(2, bias_kv), x, x, x, {.key_padding_mask = self_padding}),
      attend(mha(2, bias_kv), x, x, x, {.need_weights = false, .attn_mask = self_bool}),
      attend(mha(2, zero), x, x, x, {.average_attn_weights = false}),
      attend(mha(2, zero), x, x, x, {.key_padding_mask = self_padding, .need_weights = false}),
      attend(mha(2, {.add_bias_kv = true, .add_zero_attn = true, .batch_first = true}), q, k, v,
             {.attn_mask = cross_float}),
      attend(mha(2, dims), q, k5, v3),
      attend(mha(2, dims), q, k5, v3, {.key_padding_mask = cross_padding, .need_weights = false}),
      attend(mha(2, dims), q, k5, v3, {.attn_mask = cross_3d, .average_attn_weights = false}),
      attend(mha(2, {.kdim = 8, .vdim = 8, .batch_first = true}), x, x, x),
      attend(mha(2, {.bias = false, .batch_first = true}), x, x, x),
      attend(mha(1, first), x, x, x),
      attend(mha(2, {}), x, x, x),
      attend(mha(2, first), u, u, u, {.average_attn_weights = false}),
      attend(mha(2, {.kdim = 5, .vdim = 3}), uq, uk, uv, {.need_weights = false}),
      attend(mha(2, {.batch_first = true, .dtype = fp::DType::F64}), xd, xd, xd),
      attend(mha(2, {.add_bias_kv = true, .batch_first = true, .dtype = fp::DType::F64}), qd, kd,
             vd),
      attend(mha(2, first), q, k, v),
      attend(mha(2, first), x, x, x,
             {.need_weights = false, .attn_mask = causal, .is_causal = true}),
  };
  const auto expected = truth<std::vector<Summary>>("results");
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i) {
    SCOPED_TRACE("configuration " + std::to_string(i));
    EXPECT_EQ(actual[i], expected[i]);
  }
}

TEST(MultiheadAttention, WhyNotFastPathInPythonsWords) {
  const MultiheadAttention m(8, 2, {.batch_first = true});
  const fp::Tensor x = randn({2, 3, 8}, 1), y = randn({2, 3, 8}, 2);
  EXPECT_EQ(m.why_not_fast_path(x, x, x, {}), "");
  EXPECT_EQ(m.why_not_fast_path(x, y, y, {}),
            "non-self attention was used (query, key, and value are not the same Tensor)");
  const fp::Tensor xd = x.to(fp::DType::F64);
  EXPECT_EQ(m.why_not_fast_path(xd, xd, xd, {}),
            "dtypes of query (torch.float64) and self.in_proj_bias (torch.float32) don't match");
  const MultiheadAttention zero(8, 2, {.add_zero_attn = true, .batch_first = true});
  EXPECT_EQ(zero.why_not_fast_path(x, x, x, {}), "add_zero_attn was enabled");
  const MultiheadAttention biased(8, 2, {.add_bias_kv = true, .batch_first = true});
  EXPECT_EQ(biased.why_not_fast_path(x, x, x, {}), "self.bias_k was not None");
  const MultiheadAttention dims(8, 2, {.kdim = 5, .batch_first = true});
  EXPECT_EQ(dims.why_not_fast_path(x, x, x, {}), "in_proj_weight was None");
}

}  // namespace
