#include "flash_powder/nn/layers/attention.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "flash_powder/aten/aten.h"
#include "flash_powder/aten/shim.h"
#include "flash_powder/core/conversion.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/functions.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/functional/activation.h"
#include "flash_powder/functional/attention.h"
#include "flash_powder/functional/vision.h"
#include "layer_linear.h"
#include "masks.h"
#include "nn/messages.h"
#include "parameters.h"

// The forward pass follows torch/nn/functional.py's multi_head_attention_forward
// step by step (eval mode, no static keys), so that it rounds as Python does.

namespace fp::nn {
namespace {

using detail::fail;

constexpr const char* kLayer = "MultiheadAttention";

std::optional<Tensor> canonical_mask(const std::optional<TensorView>& mask, const char* name,
                                     DType dtype) {
  return detail::canonical_mask(mask, name, dtype, kLayer);
}

std::atomic<bool> fastpath_enabled{true};

/// Python's `_mha_shape_check`; returns whether the input is batched.
bool check_shapes(TensorView query, TensorView key, TensorView value,
                  const MultiheadAttentionForwardOptions& options, std::int64_t num_heads) {
  const auto dims = [](TensorView t) { return std::to_string(t.dim()); };
  if (query.dim() == 3) {
    if (key.dim() != 3 || value.dim() != 3) {
      fail(kLayer, "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found " +
                       dims(key) + "-D and " + dims(value) + "-D tensors respectively");
    }
    if (options.key_padding_mask && options.key_padding_mask->dim() != 2) {
      fail(kLayer,
           "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
           "found " +
               dims(*options.key_padding_mask) + "-D tensor instead");
    }
    if (options.attn_mask && options.attn_mask->dim() != 2 && options.attn_mask->dim() != 3) {
      fail(kLayer,
           "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
           "found " +
               dims(*options.attn_mask) + "-D tensor instead");
    }
    return true;
  }
  if (query.dim() != 2) {
    fail(kLayer, "query should be unbatched 2D or batched 3D tensor but received " + dims(query) +
                     "-D query tensor");
  }
  if (key.dim() != 2 || value.dim() != 2) {
    fail(kLayer, "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found " +
                     dims(key) + "-D and " + dims(value) + "-D tensors respectively");
  }
  if (options.key_padding_mask && options.key_padding_mask->dim() != 1) {
    fail(kLayer,
         "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
         "found " +
             dims(*options.key_padding_mask) + "-D tensor instead");
  }
  if (options.attn_mask && options.attn_mask->dim() == 3) {
    const std::vector<std::int64_t> expected{num_heads, query.size(0), key.size(0)};
    if (!std::ranges::equal(options.attn_mask->sizes(), expected)) {
      fail(kLayer, "Expected `attn_mask` shape to be " + detail::tuple_text(expected) +
                       " but got " + detail::torch_size(options.attn_mask->sizes()));
    }
  }
  return false;
}

/// Rows [start, start + length) of a weight or bias; std::nullopt for an absent bias.
std::optional<TensorView> rows(const Tensor& tensor, std::int64_t start, std::int64_t length) {
  if (!tensor.is_defined()) return std::nullopt;
  return tensor.narrow(0, start, length);
}

/// The projection by rows [start, start + length) of the packed weight and
/// bias (Python's `w.split(...)` / `w.chunk(3)`).
Tensor project_rows(TensorView input, const Tensor& weight, const Tensor& bias, std::int64_t start,
                    std::int64_t length) {
  return detail::layer_linear(input, weight.narrow(0, start, length), rows(bias, start, length));
}

/// Appends one zero column to the last dimension of a mask (Python's pad(mask, (0, 1))).
void pad_mask(std::optional<Tensor>& mask) {
  if (mask) mask = functional::pad(*mask, {0, 1});
}

/// Queries, keys and values on their way through the computation, [sequence, batch, feature]
/// until split into heads.
struct Projected {
  Tensor q, k, v;
};

}  // namespace

namespace detail {

std::optional<Tensor> canonical_mask(const std::optional<TensorView>& mask, const char* name,
                                     DType dtype, const char* layer) {
  if (!mask) return std::nullopt;
  if (mask->dtype() == DType::Bool) {
    const Tensor zero = zeros_like(*mask, dtype);
    const Tensor minus_infinity = tensor(-std::numeric_limits<double>::infinity(), dtype);
    return zero.masked_fill(*mask, minus_infinity);
  }
  if (!is_floating_point(mask->dtype())) {
    fail(layer, std::string("only bool and floating types of ") + name + " are supported");
  }
  return mask->to_owned();
}

Tensor square_subsequent_mask(std::int64_t size, DType dtype, Device device) {
  const Tensor filled =
      full({size, size}, -std::numeric_limits<double>::infinity(), TensorOptions(dtype, device));
  return aten::triu(filled, 1);
}

bool detect_is_causal_mask(const std::optional<TensorView>& mask, std::optional<bool> is_causal,
                           std::optional<std::int64_t> size) {
  if (is_causal || !mask) return is_causal.value_or(false);
  const std::int64_t length = size.value_or(mask->size(-2));
  const Tensor causal = square_subsequent_mask(length, mask->dtype(), mask->device());
  if (!std::ranges::equal(mask->sizes(), causal.sizes())) return false;
  return aten::all(mask->eq(causal)).item<bool>();
}

bool fast_path_device(const TensorView& tensor) {
  const Device device = tensor.device();
  return device.is_cpu() || device.is_cuda();
}

}  // namespace detail

MultiheadAttention::MultiheadAttention(std::int64_t embed_dim, std::int64_t num_heads,
                                       const MultiheadAttentionOptions& options)
    : embed_dim(embed_dim),
      num_heads(num_heads),
      kdim(options.kdim.value_or(embed_dim)),
      vdim(options.vdim.value_or(embed_dim)),
      options(options),
      out_proj(embed_dim, embed_dim,
               {.bias = options.bias, .device = options.device, .dtype = options.dtype}) {
  if (embed_dim <= 0 || num_heads <= 0) {
    fail(kLayer, "embed_dim and num_heads must be greater than 0, got embed_dim=" +
                     std::to_string(embed_dim) + " and num_heads=" + std::to_string(num_heads) +
                     " instead");
  }
  if ((embed_dim / num_heads) * num_heads != embed_dim) {
    fail(kLayer, "embed_dim must be divisible by num_heads");
  }
  const TensorOptions tensor_options = detail::layer_options(options.dtype, options.device);
  // PyTorch: xavier_uniform_ projections, zero biases, xavier_normal_ bias_k/v.
  const auto xavier_bound = [](std::int64_t fan_in, std::int64_t fan_out) {
    return std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
  };
  if (same_embed_dim()) {
    in_proj_weight = detail::uniform_init({3 * embed_dim, embed_dim},
                                          xavier_bound(embed_dim, 3 * embed_dim), tensor_options);
  } else {
    q_proj_weight = detail::uniform_init({embed_dim, embed_dim}, xavier_bound(embed_dim, embed_dim),
                                         tensor_options);
    k_proj_weight =
        detail::uniform_init({embed_dim, kdim}, xavier_bound(kdim, embed_dim), tensor_options);
    v_proj_weight =
        detail::uniform_init({embed_dim, vdim}, xavier_bound(vdim, embed_dim), tensor_options);
  }
  if (options.bias) {
    in_proj_bias = zeros({3 * embed_dim}, tensor_options);
    out_proj.bias = zeros({embed_dim}, tensor_options);
  }
  if (options.add_bias_kv) {
    const Tensor deviation = tensor(std::sqrt(1.0 / static_cast<double>(embed_dim)));
    const Tensor k_values = detail::normal_init({1, 1, embed_dim}, tensor_options);
    const Tensor v_values = detail::normal_init({1, 1, embed_dim}, tensor_options);
    bias_k = k_values * deviation;
    bias_v = v_values * deviation;
  }
}

void MultiheadAttention::visit(Visitor& visitor) {
  visitor.parameter("in_proj_weight", in_proj_weight);
  visitor.parameter("q_proj_weight", q_proj_weight);
  visitor.parameter("k_proj_weight", k_proj_weight);
  visitor.parameter("v_proj_weight", v_proj_weight);
  visitor.parameter("in_proj_bias", in_proj_bias);
  visitor.parameter("bias_k", bias_k);
  visitor.parameter("bias_v", bias_v);
  visitor.child("out_proj", out_proj);
}

std::string MultiheadAttention::why_not_fast_path(
    TensorView query, TensorView key, TensorView value,
    const MultiheadAttentionForwardOptions& options) const {
  // torch/nn/modules/activation.py, MultiheadAttention.forward, in its order.
  std::string why;
  const auto floating = [](const std::optional<TensorView>& mask) {
    return mask && is_floating_point(mask->dtype());
  };
  if (floating(options.attn_mask) || floating(options.key_padding_mask)) {
    why = "floating-point masks are not supported for fast path.";
  }
  if (!backends::mha::get_fastpath_enabled()) {
    why = "torch.backends.mha.get_fastpath_enabled() was not True";
  } else if (query.dim() != 3) {
    why = "input not batched; expected query.dim() of 3 but got " + std::to_string(query.dim());
  } else if (!aten::is_set_to(query, key) || !aten::is_set_to(key, value)) {
    why = "non-self attention was used (query, key, and value are not the same Tensor)";
  } else if (in_proj_bias.is_defined() && query.dtype() != in_proj_bias.dtype()) {
    why = "dtypes of query and self.in_proj_bias don't match";
  } else if (!in_proj_weight.is_defined()) {
    why = "in_proj_weight was None";
  } else if (query.dtype() != in_proj_weight.dtype()) {
    why = "dtypes of query and self.in_proj_weight don't match";
  } else if (num_heads % 2 != 0) {
    why = "self.num_heads is not even";
  } else if (!this->options.batch_first) {
    why = "batch_first was not True";
  } else if (bias_k.is_defined()) {
    why = "self.bias_k was not None";
  } else if (bias_v.is_defined()) {
    why = "self.bias_v was not None";
  } else if (this->options.add_zero_attn) {
    why = "add_zero_attn was enabled";
  } else if (!same_embed_dim()) {
    why = "_qkv_same_embed_dim was not True";
  }
  if (!why.empty()) return why;
  for (const TensorView* tensor : {&query, &key, &value}) {
    if (!detail::fast_path_device(*tensor)) {
      return "some Tensor argument's device is neither one of cpu, cuda";
    }
  }
  for (const Tensor* tensor : {&in_proj_weight, &in_proj_bias, &out_proj.weight, &out_proj.bias}) {
    if (tensor->is_defined() && !detail::fast_path_device(*tensor)) {
      return "some Tensor argument's device is neither one of cpu, cuda";
    }
  }
  // Python then takes the fused op only with both in-projection tensors.
  if (!in_proj_bias.is_defined()) return "in_proj_bias was None";
  return "";
}

std::tuple<std::optional<Tensor>, std::optional<std::int64_t>> MultiheadAttention::merge_masks(
    const std::optional<Tensor>& attn_mask, const std::optional<Tensor>& key_padding_mask,
    TensorView query) const {
  std::optional<std::int64_t> mask_type;
  std::optional<Tensor> merged;
  if (key_padding_mask) {
    mask_type = 1;
    merged = *key_padding_mask;
  }
  if (attn_mask) {
    const std::int64_t batch = query.size(0), length = query.size(1);
    mask_type = 2;
    Tensor expanded =
        attn_mask->dim() == 3
            ? Tensor(attn_mask->view({batch, -1, length, length}))
            : Tensor(attn_mask->view({1, 1, length, length}).expand({batch, num_heads, -1, -1}));
    if (key_padding_mask) {
      const TensorView padding =
          key_padding_mask->view({batch, 1, 1, length}).expand({-1, num_heads, -1, -1});
      merged = expanded + padding;
    } else {
      merged = std::move(expanded);
    }
  }
  return {std::move(merged), mask_type};
}

std::tuple<Tensor, Tensor> MultiheadAttention::forward(
    TensorView query_in, TensorView key_in, TensorView value_in,
    const MultiheadAttentionForwardOptions& options) const {
  if (why_not_fast_path(query_in, key_in, value_in, options).empty()) {
    const std::optional<Tensor> key_padding_mask =
        canonical_mask(options.key_padding_mask, "key_padding_mask", query_in.dtype());
    const std::optional<Tensor> attn_mask =
        canonical_mask(options.attn_mask, "attn_mask", query_in.dtype());
    auto [merged, mask_type] = merge_masks(attn_mask, key_padding_mask, query_in);
    std::optional<TensorView> merged_view;
    if (merged) merged_view = *merged;
    return aten::_native_multi_head_attention(query_in, key_in, value_in, embed_dim, num_heads,
                                              in_proj_weight, in_proj_bias, out_proj.weight,
                                              out_proj.bias, merged_view, options.need_weights,
                                              options.average_attn_weights, mask_type);
  }
  const bool batched = check_shapes(query_in, key_in, value_in, options, num_heads);
  std::optional<Tensor> key_padding_mask =
      canonical_mask(options.key_padding_mask, "key_padding_mask", query_in.dtype());
  std::optional<Tensor> attn_mask =
      canonical_mask(options.attn_mask, "attn_mask", query_in.dtype());

  // Python chooses the in-projection by identity (`key is value`, `query is
  // key`), which survives the batch_first transposes but not the unsqueeze of
  // unbatched inputs.
  const bool key_is_value = batched && aten::is_set_to(key_in, value_in);
  const bool query_is_key = key_is_value && aten::is_set_to(query_in, key_in);

  Projected x{query_in.to_owned(), key_in.to_owned(), value_in.to_owned()};
  if (this->options.batch_first && batched) {
    x = {Tensor(query_in.transpose(1, 0)), Tensor(key_in.transpose(1, 0)),
         Tensor(value_in.transpose(1, 0))};
  }
  if (!batched) {
    x = {Tensor(x.q.unsqueeze(1)), Tensor(x.k.unsqueeze(1)), Tensor(x.v.unsqueeze(1))};
    if (key_padding_mask) key_padding_mask = Tensor(key_padding_mask->unsqueeze(0));
  }
  const std::int64_t target_length = x.q.size(0);
  const std::int64_t batch = x.q.size(1);
  bool is_causal = options.is_causal;
  if (is_causal && !attn_mask) {
    fail(kLayer,
         "Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
         "method `generate_square_subsequent_mask` to create this mask.");
  }
  if (is_causal && !key_padding_mask && !options.need_weights) {
    attn_mask.reset();  // scaled_dot_product_attention applies the causal mask itself
  } else if (key_padding_mask) {
    is_causal = false;
  }
  if (x.q.size(2) != embed_dim) {
    fail(kLayer, "was expecting embedding dimension of " + std::to_string(embed_dim) +
                     ", but got " + std::to_string(x.q.size(2)));
  }
  const std::int64_t head_dim = embed_dim / num_heads;
  const auto key_sizes = x.k.sizes(), value_sizes = x.v.sizes();
  if (!same_embed_dim()) {
    if (key_sizes[0] != value_sizes[0] || key_sizes[1] != value_sizes[1]) {
      fail(kLayer, "key's sequence and batch dims " + detail::torch_size(key_sizes.first(2)) +
                       " do not match value's " + detail::torch_size(value_sizes.first(2)));
    }
  } else if (!std::ranges::equal(key_sizes, value_sizes)) {
    fail(kLayer, "key shape " + detail::torch_size(key_sizes) + " does not match value shape " +
                     detail::torch_size(value_sizes));
  }

  // In-projection (Python's _in_projection_packed / _in_projection).
  const std::int64_t e = embed_dim;
  if (!same_embed_dim()) {
    x = {detail::layer_linear(x.q, q_proj_weight, rows(in_proj_bias, 0, e)),
         detail::layer_linear(x.k, k_proj_weight, rows(in_proj_bias, e, e)),
         detail::layer_linear(x.v, v_proj_weight, rows(in_proj_bias, 2 * e, e))};
  } else if (query_is_key) {
    const Tensor packed = detail::layer_linear(x.q, in_proj_weight, rows(in_proj_bias, 0, 3 * e));
    x = {Tensor(packed.narrow(-1, 0, e)), Tensor(packed.narrow(-1, e, e)),
         Tensor(packed.narrow(-1, 2 * e, e))};
  } else if (key_is_value) {
    const Tensor q = project_rows(x.q, in_proj_weight, in_proj_bias, 0, e);
    const Tensor kv = project_rows(x.k, in_proj_weight, in_proj_bias, e, 2 * e);
    x = {q, Tensor(kv.narrow(-1, 0, e)), Tensor(kv.narrow(-1, e, e))};
  } else {
    x = {project_rows(x.q, in_proj_weight, in_proj_bias, 0, e),
         project_rows(x.k, in_proj_weight, in_proj_bias, e, e),
         project_rows(x.v, in_proj_weight, in_proj_bias, 2 * e, e)};
  }

  std::int64_t source_length = x.k.size(0);
  if (attn_mask) {
    if (attn_mask->dim() == 2) {
      const std::vector<std::int64_t> expected{target_length, source_length};
      if (!std::ranges::equal(attn_mask->sizes(), expected)) {
        fail(kLayer, "The shape of the 2D attn_mask is " + detail::torch_size(attn_mask->sizes()) +
                         ", but should be " + detail::tuple_text(expected) + ".");
      }
      attn_mask = Tensor(attn_mask->unsqueeze(0));
    } else if (attn_mask->dim() == 3) {
      const std::vector<std::int64_t> expected{batch * num_heads, target_length, source_length};
      if (!std::ranges::equal(attn_mask->sizes(), expected)) {
        fail(kLayer, "The shape of the 3D attn_mask is " + detail::torch_size(attn_mask->sizes()) +
                         ", but should be " + detail::tuple_text(expected) + ".");
      }
    } else {
      fail(kLayer,
           "attn_mask's dimension " + std::to_string(attn_mask->dim()) + " is not supported");
    }
  }
  if (bias_k.is_defined() && bias_v.is_defined()) {
    x.k = fp::cat({x.k, aten::repeat(bias_k, {1, batch, 1})}, 0);
    x.v = fp::cat({x.v, aten::repeat(bias_v, {1, batch, 1})}, 0);
    pad_mask(attn_mask);
    pad_mask(key_padding_mask);
  }

  // Split into heads: [batch * heads, sequence, head_dim].
  const std::int64_t heads = batch * num_heads;
  Tensor q(x.q.reshape({target_length, heads, head_dim}).transpose(0, 1));
  Tensor k(x.k.reshape({x.k.size(0), heads, head_dim}).transpose(0, 1));
  Tensor v(x.v.reshape({x.v.size(0), heads, head_dim}).transpose(0, 1));
  if (this->options.add_zero_attn) {
    const Tensor zero = zeros({heads, 1, head_dim}, TensorOptions(k.dtype(), k.device()));
    k = fp::cat({k, zero}, 1);
    v = fp::cat({v, zero}, 1);
    pad_mask(attn_mask);
    pad_mask(key_padding_mask);
  }
  source_length = k.size(1);
  if (key_padding_mask) {
    // Python's _check_key_padding_mask (the mask is 2-D here).
    const std::int64_t expected[] = {batch, source_length};
    for (int d = 0; d < 2; ++d) {
      if (key_padding_mask->size(d) != expected[d]) {
        fail(kLayer, "Expected key_padded_mask.shape[" + std::to_string(d) + "] to be " +
                         std::to_string(expected[d]) + ", but got " +
                         std::to_string(key_padding_mask->size(d)));
      }
    }
    const Tensor per_batch = key_padding_mask->reshape({batch, 1, 1, source_length});
    Tensor merged = per_batch.expand({-1, num_heads, -1, -1}).reshape({heads, 1, source_length});
    attn_mask = attn_mask ? *attn_mask + merged : std::move(merged);
  }

  Tensor output, weights;
  if (options.need_weights) {
    const Tensor scale = tensor(std::sqrt(1.0 / static_cast<double>(head_dim)));
    const Tensor q_scaled = q * scale;
    const TensorView k_transposed = k.transpose(-2, -1);
    if (!attn_mask) {
      weights = functional::softmax(q_scaled.bmm(k_transposed), -1);
    } else if (q.device().is_cpu() || q.device().is_cuda()) {
      // Python's baddbmm(attn_mask, q, k^T): its Scalars reach libtorch's
      // kernel through the backend shim.
      Tensor scores =
          empty({heads, target_length, source_length}, TensorOptions(q.dtype(), q.device()));
      aten::shim::baddbmm_out(*attn_mask, q_scaled, k_transposed, 1.0, 1.0, scores);
      weights = functional::softmax(scores, -1);
    } else {
      // No shim reaches other devices: mask + (q k^T), which may round differently.
      weights = functional::softmax(*attn_mask + q_scaled.bmm(k_transposed), -1);
    }
    const Tensor attended = weights.bmm(v);
    const Tensor rows_first = attended.transpose(0, 1).reshape({target_length * batch, embed_dim});
    output = out_proj.forward(rows_first).reshape({target_length, batch, embed_dim});
    weights = weights.reshape({batch, num_heads, target_length, source_length});
    if (options.average_attn_weights) weights = weights.mean({1});
    if (!batched) weights = Tensor(weights.squeeze(0));
  } else {
    if (attn_mask) {
      attn_mask = attn_mask->size(0) == 1 && attn_mask->dim() == 3
                      ? Tensor(attn_mask->unsqueeze(0))
                      : attn_mask->reshape({batch, num_heads, -1, source_length});
    }
    q = q.reshape({batch, num_heads, target_length, head_dim});
    k = k.reshape({batch, num_heads, source_length, head_dim});
    v = v.reshape({batch, num_heads, source_length, head_dim});
    std::optional<TensorView> mask_view;
    if (attn_mask) mask_view = *attn_mask;
    const Tensor attended = functional::scaled_dot_product_attention(
        q, k, v, {.attn_mask = mask_view, .is_causal = is_causal});
    const Tensor rows_first =
        attended.permute({2, 0, 1, 3}).reshape({batch * target_length, embed_dim});
    output = out_proj.forward(rows_first).reshape({target_length, batch, embed_dim});
  }
  if (!batched) output = Tensor(output.squeeze(1));
  if (this->options.batch_first && batched) output = Tensor(output.transpose(1, 0));
  return {std::move(output), std::move(weights)};
}

}  // namespace fp::nn

namespace fp::nn::backends::mha {

void set_fastpath_enabled(bool enabled) {
  fp::nn::fastpath_enabled.store(enabled);
}

bool get_fastpath_enabled() {
  return fp::nn::fastpath_enabled.load();
}

}  // namespace fp::nn::backends::mha
