#include "flash_powder/nn/layers/attention.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "flash_powder/aten/aten.h"
#include "flash_powder/core/conversion.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/operators.h"
#include "functional/multi_head_attention.h"
#include "layer_linear.h"
#include "masks.h"
#include "nn/messages.h"
#include "parameters.h"

// Outside PyTorch's fast path the forward pass is fp::functional's
// multi_head_attention_forward, as Python's module calls F.multi_head_attention_forward.

namespace fp::nn {
namespace {

using detail::fail;

constexpr const char* kLayer = "MultiheadAttention";

std::optional<Tensor> canonical_mask(const std::optional<TensorView>& mask, const char* name,
                                     DType dtype) {
  return detail::canonical_mask(mask, name, dtype, kLayer);
}

std::atomic<bool> fastpath_enabled{true};

std::optional<TensorView> view_of(const std::optional<Tensor>& tensor) {
  if (!tensor) return std::nullopt;
  return TensorView(*tensor);
}

/// "torch.float32": Python's text of a dtype.
std::string dtype_text(DType dtype) {
  return "torch." + std::string(name(dtype));
}

}  // namespace

namespace detail {

std::optional<Tensor> canonical_mask(const std::optional<TensorView>& mask, const char* name,
                                     DType dtype, const char* layer) {
  return functional::detail::canonical_mask(mask, name, dtype, std::string("fp::nn::") + layer);
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
    why = "dtypes of query (" + dtype_text(query.dtype()) + ") and self.in_proj_bias (" +
          dtype_text(in_proj_bias.dtype()) + ") don't match";
  } else if (!in_proj_weight.is_defined()) {
    why = "in_proj_weight was None";
  } else if (query.dtype() != in_proj_weight.dtype()) {
    why = "dtypes of query (" + dtype_text(query.dtype()) + ") and self.in_proj_weight (" +
          dtype_text(in_proj_weight.dtype()) + ") don't match";
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
      return "some Tensor argument's device is neither one of cpu, cuda or privateuseone";
    }
  }
  for (const Tensor* tensor : {&in_proj_weight, &in_proj_bias, &out_proj.weight, &out_proj.bias}) {
    if (tensor->is_defined() && !detail::fast_path_device(*tensor)) {
      return "some Tensor argument's device is neither one of cpu, cuda or privateuseone";
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
    TensorView query, TensorView key, TensorView value,
    const MultiheadAttentionForwardOptions& options) const {
  // As Python's module: the masks made float first, then the fast path or the function.
  const std::optional<Tensor> key_padding_mask =
      canonical_mask(options.key_padding_mask, "key_padding_mask", query.dtype());
  const std::optional<Tensor> attn_mask =
      canonical_mask(options.attn_mask, "attn_mask", query.dtype());
  if (why_not_fast_path(query, key, value, options).empty()) {
    auto [merged, mask_type] = merge_masks(attn_mask, key_padding_mask, query);
    std::optional<TensorView> merged_view;
    if (merged) merged_view = *merged;
    return aten::_native_multi_head_attention(
        query, key, value, embed_dim, num_heads, in_proj_weight, in_proj_bias, out_proj.weight,
        out_proj.bias, merged_view, options.need_weights, options.average_attn_weights, mask_type);
  }
  // Python's module hands F.multi_head_attention_forward [sequence, batch,
  // feature] inputs; transposing each keeps `key is value` and `query is key`.
  const bool transposed = this->options.batch_first && query.dim() == 3;
  const auto arranged = [transposed](const TensorView& x) {
    return transposed ? x.transpose(1, 0) : x;
  };
  const functional::MultiHeadAttentionForwardOptions call{
      .training = false,
      .key_padding_mask = view_of(key_padding_mask),
      .need_weights = options.need_weights,
      .attn_mask = view_of(attn_mask),
      .use_separate_proj_weight = !same_embed_dim(),
      .q_proj_weight = detail::optional_view(q_proj_weight),
      .k_proj_weight = detail::optional_view(k_proj_weight),
      .v_proj_weight = detail::optional_view(v_proj_weight),
      .average_attn_weights = options.average_attn_weights,
      .is_causal = options.is_causal};
  auto [output, weights] = functional::detail::multi_head_attention_forward(
      arranged(query), arranged(key), arranged(value), embed_dim, num_heads,
      detail::optional_view(in_proj_weight), detail::optional_view(in_proj_bias),
      detail::optional_view(bias_k), detail::optional_view(bias_v), this->options.add_zero_attn,
      this->options.dropout, out_proj.weight, detail::optional_view(out_proj.bias), call,
      "fp::nn::MultiheadAttention", &detail::layer_linear);
  if (transposed) output = Tensor(output.transpose(1, 0));
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
