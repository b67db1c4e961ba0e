#include "flash_powder/functional/attention.h"

#include "flash_powder/aten/aten.h"

namespace fp::functional {

Tensor scaled_dot_product_attention(const TensorView& query, const TensorView& key,
                                    const TensorView& value,
                                    const ScaledDotProductAttentionOptions& options) {
  return aten::scaled_dot_product_attention(query, key, value, options.attn_mask, options.dropout_p,
                                            options.is_causal, options.scale, options.enable_gqa);
}

}  // namespace fp::functional
