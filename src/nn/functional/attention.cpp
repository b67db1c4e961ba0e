#include "flash_powder/nn/functional/attention.h"

#include "../aten_op.h"

namespace fp::functional {

Tensor scaled_dot_product_attention(TensorView query, TensorView key, TensorView value,
                                    const ScaledDotProductAttentionOptions& options) {
  static const nn::detail::AtenOp op("aten::scaled_dot_product_attention", "");
  return op(query, key, value, options.attn_mask, options.dropout_p, options.is_causal,
            options.scale, options.enable_gqa);
}

}  // namespace fp::functional
