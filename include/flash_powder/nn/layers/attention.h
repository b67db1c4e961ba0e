// torch.nn.MultiheadAttention.
// https://pytorch.org/docs/stable/generated/torch.nn.MultiheadAttention.html
//
//     fp::nn::MultiheadAttention attention(64, 8, {.batch_first = true});
//     auto [output, weights] = attention.forward(x, x, x);            // self-attention
//     auto [output2, none] = attention.forward(q, k, v, {.need_weights = false});
//
// It takes three inputs, so call forward(query, key, value, {...}); the
// one-input forward() of fp::nn::Module throws and says so.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>

#include "flash_powder/base/device.h"
#include "flash_powder/base/dtype.h"
#include "flash_powder/nn/layers/linear.h"
#include "flash_powder/nn/module.h"

namespace fp::nn {

struct MultiheadAttentionOptions {
  /// Only used in training, which flash_powder does not do.
  double dropout = 0.0;
  bool bias = true;
  /// Learnable `bias_k` and `bias_v` appended to the keys and values.
  bool add_bias_kv = false;
  /// A zero key and value appended after them.
  bool add_zero_attn = false;
  /// The feature sizes of key and value (embed_dim when absent). When either
  /// differs from embed_dim, the projections are separate parameters
  /// `q_proj_weight`, `k_proj_weight`, `v_proj_weight` instead of `in_proj_weight`.
  std::optional<std::int64_t> kdim{};
  std::optional<std::int64_t> vdim{};
  /// Inputs are [batch, sequence, feature] rather than [sequence, batch, feature].
  bool batch_first = false;
  std::optional<Device> device{};
  std::optional<DType> dtype{};
};

/// The keyword arguments of Python's `MultiheadAttention.forward`.
struct MultiheadAttentionForwardOptions {
  /// [batch, source]: true (bool) or -inf-like (float) marks keys to ignore.
  std::optional<TensorView> key_padding_mask{};
  /// Return the attention weights as well.
  bool need_weights = true;
  /// [target, source] or [batch * heads, target, source]: bool (true = do not
  /// attend) or additive float mask.
  std::optional<TensorView> attn_mask{};
  /// Average the returned weights over heads (else one set per head).
  bool average_attn_weights = true;
  /// A hint that attn_mask is the causal mask (it must still be given).
  bool is_causal = false;
};

class MultiheadAttention : public Module {
 public:
  /// Throws fp::Error unless num_heads divides embed_dim.
  MultiheadAttention(std::int64_t embed_dim, std::int64_t num_heads,
                     const MultiheadAttentionOptions& options = {});

  void visit(Visitor& visitor) override;
  /// The attention output and, if `need_weights`, the attention weights
  /// (else an undefined Tensor, Python's None). Computed step by step as
  /// Python's `F.multi_head_attention_forward`, bit-exact with it. (Under
  /// torch.no_grad() PyTorch may instead take its fused fast path,
  /// torch._native_multi_head_attention, unless
  /// `torch.backends.mha.set_fastpath_enabled(False)`; that rounds differently,
  /// e.g. 1.9e-6 on outputs of 23.) Python's `baddbmm(mask, q, k^T)` takes
  /// Scalars the stable ABI cannot carry; it is computed as mask + q k^T with
  /// one rounding, which matched it bit for bit in every test.
  std::tuple<Tensor, Tensor> forward(TensorView query, TensorView key, TensorView value,
                                     const MultiheadAttentionForwardOptions& options = {}) const;
  /// Throws fp::Error: MultiheadAttention takes query, key and value.
  Tensor forward(TensorView input) const override;

  std::int64_t embed_dim;
  std::int64_t num_heads;
  std::int64_t kdim;
  std::int64_t vdim;
  MultiheadAttentionOptions options;
  Tensor in_proj_weight;
  Tensor q_proj_weight;
  Tensor k_proj_weight;
  Tensor v_proj_weight;
  Tensor in_proj_bias;
  Tensor bias_k;
  Tensor bias_v;
  Linear out_proj;

 private:
  bool same_embed_dim() const { return kdim == embed_dim && vdim == embed_dim; }
};

}  // namespace fp::nn
