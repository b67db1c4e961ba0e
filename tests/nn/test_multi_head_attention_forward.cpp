// fp::functional::multi_head_attention_forward against Python's
// F.multi_head_attention_forward: packed, encoder-decoder and separate
// projections, static keys and values, unbatched, and Python's messages.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include <optional>
#include <string>

#include "nn/helpers.h"
#include "nn/summary.h"
#include "support/expect_error.h"
#include "support/truth.h"

/*
#|PYTHON_GLOBAL
import torch.nn as nn
import torch.nn.functional as F
from truth_helpers import g, values, filled
torch.set_grad_enabled(False)
def summary(t):
    return [[float(s) for s in t.shape], [float(s) for s in t.stride()], values(t)]
*/

namespace {

using fp_test::truth;

namespace F = fp::functional;
using fp::nn::MultiheadAttention;
using nn_test::randn;
using nn_test::Summary;

MultiheadAttention filled(std::int64_t embed_dim, std::int64_t heads,
                          const fp::nn::MultiheadAttentionOptions& options = {}) {
  MultiheadAttention attention(embed_dim, heads, options);
  attention.load_state_dict(nn_test::filled(attention));
  return attention;
}

TEST(FunctionalMultiHeadAttention, EqualsPythonsFunction) {
  /*
  #|PYTHON
  m = filled(nn.MultiheadAttention(8, 2, add_bias_kv=True))
  sd = {key: value.detach() for key, value in m.state_dict().items()}
  q = torch.randn(3, 2, 8, generator=g(40))
  kv = torch.randn(4, 2, 8, generator=g(41))
  mask = torch.randn(3, 4, generator=g(42))
  def mha(query, key, value, **kw):
      return F.multi_head_attention_forward(
          query, key, value, 8, 2, sd["in_proj_weight"], sd["in_proj_bias"], sd["bias_k"], sd["bias_v"],
          False, 0.0, sd["out_proj.weight"], sd["out_proj.bias"], **kw)
  def both(pair):
      return summary(pair[0]) + ([] if pair[1] is None else summary(pair[1]))
  packed = both(mha(q, kv, kv, training=False, attn_mask=mask))
  separate = both(mha(q, kv, kv.clone(), need_weights=False))
  self_attention = both(mha(q, q, q, average_attn_weights=False))
  unbatched = both(mha(q[:, 0], kv[:, 0], kv[:, 0]))
  */
  const MultiheadAttention m = filled(8, 2, {.add_bias_kv = true});
  const fp::Tensor q = randn({3, 2, 8}, 40), kv = randn({4, 2, 8}, 41), mask = randn({3, 4}, 42);
  const fp::Tensor kv_copy = kv.contiguous() + 0.0;
  const auto mha = [&](fp::TensorView query, fp::TensorView key, fp::TensorView value,
                       const F::MultiHeadAttentionForwardOptions& options) {
    auto [out, w] = F::multi_head_attention_forward(query, key, value, 8, 2, m.in_proj_weight,
                                                    m.in_proj_bias, m.bias_k, m.bias_v, false, 0.0,
                                                    m.out_proj.weight, m.out_proj.bias, options);
    Summary result = nn_test::summary(out);
    if (w.is_defined()) {
      for (const auto& part : nn_test::summary(w))
        result.push_back(part);
    }
    return result;
  };
  EXPECT_EQ(mha(q, kv, kv, {.training = false, .attn_mask = mask}), truth<Summary>("packed"));
  EXPECT_EQ(mha(q, kv, kv_copy, {.need_weights = false}), truth<Summary>("separate"));
  EXPECT_EQ(mha(q, q, q, {.average_attn_weights = false}), truth<Summary>("self_attention"));
  const fp::TensorView uq = q.i(fp::all, 0), ukv = kv.i(fp::all, 0);
  EXPECT_EQ(mha(uq, ukv, ukv, {}), truth<Summary>("unbatched"));
}

TEST(FunctionalMultiHeadAttention, SeparateWeightsStaticKeysAndPlainLinear) {
  /*
  #|PYTHON
  m = filled(nn.MultiheadAttention(256, 4, kdim=6, vdim=5), scale=0.1)
  sd = {key: value.detach() for key, value in m.state_dict().items()}
  q = torch.randn(2, 7, 256, generator=g(43)).transpose(0, 1)
  k = torch.randn(4, 2, 6, generator=g(44))
  v = torch.randn(4, 2, 5, generator=g(45))
  static_k = torch.randn(8, 3, 64, generator=g(46))
  static_v = torch.randn(8, 3, 64, generator=g(47))
  out, w = F.multi_head_attention_forward(
      q, k, v, 256, 4, None, sd["in_proj_bias"], None, None, True, 0.0,
      sd["out_proj.weight"], sd["out_proj.bias"], training=False, use_separate_proj_weight=True,
      q_proj_weight=sd["q_proj_weight"], k_proj_weight=sd["k_proj_weight"], v_proj_weight=sd["v_proj_weight"])
  out_static, w_static = F.multi_head_attention_forward(
      q, k, v, 256, 4, None, sd["in_proj_bias"], None, None, False, 0.0,
      sd["out_proj.weight"], sd["out_proj.bias"], training=False, use_separate_proj_weight=True,
      q_proj_weight=sd["q_proj_weight"], k_proj_weight=sd["k_proj_weight"], v_proj_weight=sd["v_proj_weight"],
      static_k=static_k, static_v=static_v)
  */
  MultiheadAttention m(256, 4, {.kdim = 6, .vdim = 5});
  m.load_state_dict(nn_test::filled(m, 100, 0.1f));
  const fp::Tensor q_batch_first = randn({2, 7, 256}, 43);
  const fp::TensorView q = q_batch_first.transpose(0, 1);  // not contiguous: F.linear, no fold
  const fp::Tensor k = randn({4, 2, 6}, 44), v = randn({4, 2, 5}, 45);
  const fp::Tensor static_k = randn({8, 3, 64}, 46), static_v = randn({8, 3, 64}, 47);
  F::MultiHeadAttentionForwardOptions options{.training = false,
                                              .use_separate_proj_weight = true,
                                              .q_proj_weight = m.q_proj_weight,
                                              .k_proj_weight = m.k_proj_weight,
                                              .v_proj_weight = m.v_proj_weight};
  auto [out, w] = F::multi_head_attention_forward(q, k, v, 256, 4, std::nullopt, m.in_proj_bias,
                                                  std::nullopt, std::nullopt, true, 0.0,
                                                  m.out_proj.weight, m.out_proj.bias, options);
  EXPECT_SAME(out, truth<Summary>("summary(out)"));
  EXPECT_SAME(w, truth<Summary>("summary(w)"));
  options.static_k = static_k;
  options.static_v = static_v;
  auto [out_static, w_static] = F::multi_head_attention_forward(
      q, k, v, 256, 4, std::nullopt, m.in_proj_bias, std::nullopt, std::nullopt, false, 0.0,
      m.out_proj.weight, m.out_proj.bias, options);
  EXPECT_SAME(out_static, truth<Summary>("summary(out_static)"));
  EXPECT_SAME(w_static, truth<Summary>("summary(w_static)"));
}

TEST(FunctionalMultiHeadAttention, BadInputSaysWhatPythonSays) {
  /*
  #|PYTHON
  m = nn.MultiheadAttention(4, 2, add_bias_kv=True)
  sd = {key: value.detach() for key, value in m.state_dict().items()}
  x = torch.randn(3, 2, 4)
  def refusal(**kw):
      args = dict(query=x, key=x, value=x, embed_dim_to_check=4, num_heads=2,
                  in_proj_weight=sd["in_proj_weight"], in_proj_bias=sd["in_proj_bias"],
                  bias_k=None, bias_v=None, add_zero_attn=False, dropout_p=0.0,
                  out_proj_weight=sd["out_proj.weight"], out_proj_bias=sd["out_proj.bias"])
      args.update(kw)
      try:
          F.multi_head_attention_forward(**args)
      except (AssertionError, RuntimeError) as e:
          return str(e)
  */
  const MultiheadAttention m(4, 2, {.add_bias_kv = true});
  const fp::Tensor x = randn({3, 2, 4}, 1);
  const auto call = [&](const F::MultiHeadAttentionForwardOptions& options,
                        std::optional<fp::TensorView> in_proj_weight, std::int64_t embed_dim,
                        std::optional<fp::TensorView> bias_k,
                        std::optional<fp::TensorView> bias_v) {
    return F::multi_head_attention_forward(x, x, x, embed_dim, 2, in_proj_weight, m.in_proj_bias,
                                           bias_k, bias_v, false, 0.0, m.out_proj.weight,
                                           m.out_proj.bias, options);
  };
  const auto refuses = [](const std::string& message, auto&& attempt) {
    EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument,
                          "fp::functional::multi_head_attention_forward: " + message, attempt());
  };
  const fp::Tensor wrong_static = randn({5, 3, 2}, 2);
  refuses(truth<std::string>("refusal(embed_dim_to_check=6)"),
          [&] { return call({}, m.in_proj_weight, 6, std::nullopt, std::nullopt); });
  refuses(truth<std::string>("refusal(in_proj_weight=None)"),
          [&] { return call({}, std::nullopt, 4, std::nullopt, std::nullopt); });
  refuses(truth<std::string>("refusal(use_separate_proj_weight=True)"), [&] {
    return call({.use_separate_proj_weight = true}, m.in_proj_weight, 4, std::nullopt,
                std::nullopt);
  });
  refuses(
      truth<std::string>(
          R"(refusal(bias_k=sd["bias_k"], bias_v=sd["bias_v"], static_k=torch.randn(5, 3, 2)))"),
      [&] { return call({.static_k = wrong_static}, m.in_proj_weight, 4, m.bias_k, m.bias_v); });
  refuses(truth<std::string>(R"(refusal(bias_k=sd["bias_k"]))"),
          [&] { return call({}, m.in_proj_weight, 4, m.bias_k, std::nullopt); });
  refuses(truth<std::string>("refusal(static_k=torch.randn(5, 3, 2))"), [&] {
    return call({.static_k = wrong_static}, m.in_proj_weight, 4, std::nullopt, std::nullopt);
  });
  refuses(truth<std::string>("refusal(is_causal=True)"), [&] {
    return call({.is_causal = true}, m.in_proj_weight, 4, std::nullopt, std::nullopt);
  });
  const fp::Tensor integer_mask = fp::zeros({3, 3}, fp::DType::I64);
  refuses(truth<std::string>("refusal(attn_mask=torch.zeros(3, 3, dtype=torch.int64))"), [&] {
    return call({.attn_mask = integer_mask}, m.in_proj_weight, 4, std::nullopt, std::nullopt);
  });
}

}  // namespace
