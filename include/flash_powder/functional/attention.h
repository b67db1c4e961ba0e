// torch.nn.functional.scaled_dot_product_attention and multi_head_attention_forward.
// https://pytorch.org/docs/stable/nn.functional.html#attention-mechanisms
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>

#include "flash_powder/core/tensor.h"

namespace fp::functional {

/// The keyword arguments of scaled_dot_product_attention, with PyTorch's defaults.
struct ScaledDotProductAttentionOptions {
  /// Boolean (true = take part) or additive float mask, broadcastable to
  /// [..., L, S].
  std::optional<TensorView> attn_mask{};
  /// The probability of dropping an attention weight (random; 0 in inference).
  double dropout_p = 0.0;
  /// A lower-triangular mask; not together with attn_mask.
  bool is_causal = false;
  /// Defaults to 1/sqrt(E).
  std::optional<double> scale{};
  /// Grouped-query attention: key/value heads shared by groups of query heads.
  bool enable_gqa = false;
};
/// softmax(Q K^T * scale + mask) V for query [..., L, E], key [..., S, E],
/// value [..., S, Ev]; a new Tensor [..., L, Ev].
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.scaled_dot_product_attention.html
Tensor scaled_dot_product_attention(const TensorView& query, const TensorView& key,
                                    const TensorView& value,
                                    const ScaledDotProductAttentionOptions& options = {});

/// The keyword arguments of Python's multi_head_attention_forward, with its defaults.
struct MultiHeadAttentionForwardOptions {
  /// Python's default: dropout_p applies unless training is false. Training
  /// dropout draws from libtorch's global generator, as Python's does.
  bool training = true;
  /// [batch, source] ([source] unbatched): true (bool) or an additive float
  /// marks keys to ignore.
  std::optional<TensorView> key_padding_mask{};
  /// Return the attention weights as well.
  bool need_weights = true;
  /// [target, source] or [batch * heads, target, source]: bool (true = do not
  /// attend) or additive float mask.
  std::optional<TensorView> attn_mask{};
  /// Project with q_proj_weight, k_proj_weight and v_proj_weight (key and
  /// value may then have other feature sizes) instead of in_proj_weight.
  bool use_separate_proj_weight = false;
  std::optional<TensorView> q_proj_weight{};
  std::optional<TensorView> k_proj_weight{};
  std::optional<TensorView> v_proj_weight{};
  /// Keys and values already projected and split into heads,
  /// [batch * heads, source, head_dim], used instead of projecting key and value.
  std::optional<TensorView> static_k{};
  std::optional<TensorView> static_v{};
  /// Average the returned weights over heads (else one set per head).
  bool average_attn_weights = true;
  /// A hint that attn_mask is the causal mask (it must still be given).
  bool is_causal = false;
};
/// Multi-head attention of query [target, batch, embed_dim] (or unbatched
/// [target, embed_dim]) over key and value [source, batch, *], step by step
/// as Python's function computes it, so that it rounds the same: the output
/// [target, batch, embed_dim] and, if `need_weights`, the attention weights
/// [batch, target, source] ([batch, heads, target, source] unaveraged;
/// without the batch unbatched), else an undefined Tensor (Python's None).
/// Query, key and value count as the same tensor (Python's `query is key`,
/// which picks the packed projection) when they are views of the same
/// memory with the same sizes and strides. Throws fp::Error with Python's
/// message for shapes and masks that do not fit. This is the function
/// fp::nn::MultiheadAttention runs outside PyTorch's fast path.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.multi_head_attention_forward.html
std::tuple<Tensor, Tensor> multi_head_attention_forward(
    const TensorView& query, const TensorView& key, const TensorView& value,
    std::int64_t embed_dim_to_check, std::int64_t num_heads,
    const std::optional<TensorView>& in_proj_weight, const std::optional<TensorView>& in_proj_bias,
    const std::optional<TensorView>& bias_k, const std::optional<TensorView>& bias_v,
    bool add_zero_attn, double dropout_p, const TensorView& out_proj_weight,
    const std::optional<TensorView>& out_proj_bias,
    const MultiHeadAttentionForwardOptions& options = {});

}  // namespace fp::functional
