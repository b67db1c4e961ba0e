// torch.nn.functional.scaled_dot_product_attention.
// https://pytorch.org/docs/stable/generated/torch.nn.functional.scaled_dot_product_attention.html
#pragma once

#include <optional>

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
Tensor scaled_dot_product_attention(const TensorView& query, const TensorView& key,
                                    const TensorView& value,
                                    const ScaledDotProductAttentionOptions& options = {});

}  // namespace fp::functional
