// What fp::functional::multi_head_attention_forward and
// fp::nn::MultiheadAttention share: the computation, with the module's own
// error prefix and projections. Internal; defined in multi_head_attention.cpp.
#pragma once

#include <optional>
#include <string>
#include <tuple>

#include "flash_powder/base/dtype.h"
#include "flash_powder/core/tensor.h"
#include "flash_powder/functional/attention.h"

namespace fp::functional::detail {

/// How the in-projections are computed: F.linear, or as torch.nn's layers
/// compute it with parameters that require grad (nn::detail::layer_linear).
using Projection = Tensor (*)(TensorView input, TensorView weight,
                              const std::optional<TensorView>& bias);

/// Python's `F._canonical_mask`: a bool mask becomes 0 / -inf in `dtype`, a
/// floating one is kept; any other dtype is an fp::Error "<who>: only bool
/// and floating types of <name> are supported".
std::optional<Tensor> canonical_mask(const std::optional<TensorView>& mask, const char* name,
                                     DType dtype, const std::string& who);

/// multi_head_attention_forward whose errors start "<who>: " and whose
/// in-projections run `project`.
std::tuple<Tensor, Tensor> multi_head_attention_forward(
    const TensorView& query, const TensorView& key, const TensorView& value,
    std::int64_t embed_dim_to_check, std::int64_t num_heads,
    const std::optional<TensorView>& in_proj_weight, const std::optional<TensorView>& in_proj_bias,
    const std::optional<TensorView>& bias_k, const std::optional<TensorView>& bias_v,
    bool add_zero_attn, double dropout_p, const TensorView& out_proj_weight,
    const std::optional<TensorView>& out_proj_bias, const MultiHeadAttentionForwardOptions& options,
    const std::string& who, Projection project);

}  // namespace fp::functional::detail
