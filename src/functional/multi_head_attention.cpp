// torch/nn/functional.py's multi_head_attention_forward, step by step, so
// that it rounds as Python does.
#include "multi_head_attention.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "flash_powder/aten/aten.h"
#include "flash_powder/aten/shim.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/functions.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/functional/activation.h"
#include "flash_powder/functional/dropout.h"
#include "flash_powder/functional/linear.h"
#include "flash_powder/functional/vision.h"
#include "nn/messages.h"

namespace fp::functional {
namespace detail {
namespace {

using nn::detail::torch_size;
using nn::detail::tuple_text;

[[noreturn]] void fail(const std::string& who, const std::string& message) {
  throw Error(ErrorCode::BadArgument, who + ": " + message);
}

/// The tensors of one call: the arguments, then the computation's state.
struct Call {
  const std::optional<TensorView>& in_proj_weight;
  const std::optional<TensorView>& in_proj_bias;
  const std::optional<TensorView>& bias_k;
  const std::optional<TensorView>& bias_v;
  const MultiHeadAttentionForwardOptions& options;
  const std::string& who;
  Projection project;
};

/// Queries, keys and values on their way through the computation,
/// [sequence, batch, feature] until split into heads.
struct Projected {
  Tensor q, k, v;
};

std::string dims(const TensorView& tensor) {
  return std::to_string(tensor.dim());
}

/// Python's `_mha_shape_check`; returns whether the input is batched.
bool check_shapes(const TensorView& query, const TensorView& key, const TensorView& value,
                  const Call& call, std::int64_t num_heads) {
  const auto& key_padding_mask = call.options.key_padding_mask;
  const auto& attn_mask = call.options.attn_mask;
  const bool batched = query.dim() == 3;
  if (!batched && query.dim() != 2) {
    fail(call.who, "query should be unbatched 2D or batched 3D tensor but received " + dims(query) +
                       "-D query tensor");
  }
  const std::string kind = batched ? "For batched (3-D) `query`" : "For unbatched (2-D) `query`";
  const std::int64_t rank = query.dim();
  if (key.dim() != rank || value.dim() != rank) {
    fail(call.who, kind + ", expected `key` and `value` to be " + dims(query) + "-D but found " +
                       dims(key) + "-D and " + dims(value) + "-D tensors respectively");
  }
  if (key_padding_mask && key_padding_mask->dim() != rank - 1) {
    fail(call.who, kind + ", expected `key_padding_mask` to be `None` or " +
                       std::to_string(rank - 1) + "-D but found " + dims(*key_padding_mask) +
                       "-D tensor instead");
  }
  if (attn_mask && attn_mask->dim() != 2 && attn_mask->dim() != 3) {
    fail(call.who, kind + ", expected `attn_mask` to be `None`, 2-D or 3-D but found " +
                       dims(*attn_mask) + "-D tensor instead");
  }
  if (!batched && attn_mask && attn_mask->dim() == 3) {
    const std::vector<std::int64_t> expected{num_heads, query.size(0), key.size(0)};
    if (!std::ranges::equal(attn_mask->sizes(), expected)) {
      fail(call.who, "Expected `attn_mask` shape to be " + tuple_text(expected) + " but got " +
                         torch_size(attn_mask->sizes()));
    }
  }
  return batched;
}

/// Rows [start, start + length) of a packed weight or bias (Python's split / chunk).
std::optional<TensorView> rows(const std::optional<TensorView>& tensor, std::int64_t start,
                               std::int64_t length) {
  if (!tensor) return std::nullopt;
  return tensor->narrow(0, start, length);
}

/// Which of query, key and value Python's `_in_projection_packed` takes for
/// the same tensor (`k is v`, `q is k`): here, views of the same memory.
struct Identities {
  bool key_is_value = false;
  bool query_is_key = false;
};

/// Python's `_in_projection_packed`.
Projected packed_projection(const Projected& x, Identities same, const Call& call) {
  if (!call.in_proj_weight) {
    fail(call.who, "use_separate_proj_weight is False but in_proj_weight is None");
  }
  const TensorView& w = *call.in_proj_weight;
  const std::int64_t e = x.q.size(-1);
  const bool key_is_value = same.key_is_value;
  if (same.query_is_key) {
    const Tensor packed = call.project(x.q, w, call.in_proj_bias);
    return {Tensor(packed.narrow(-1, 0, e)), Tensor(packed.narrow(-1, e, e)),
            Tensor(packed.narrow(-1, 2 * e, e))};
  }
  if (key_is_value) {
    const Tensor q = call.project(x.q, w.narrow(0, 0, e), rows(call.in_proj_bias, 0, e));
    const Tensor kv = call.project(x.k, w.narrow(0, e, 2 * e), rows(call.in_proj_bias, e, 2 * e));
    return {q, Tensor(kv.narrow(-1, 0, e)), Tensor(kv.narrow(-1, e, e))};
  }
  return {call.project(x.q, w.narrow(0, 0, e), rows(call.in_proj_bias, 0, e)),
          call.project(x.k, w.narrow(0, e, e), rows(call.in_proj_bias, e, e)),
          call.project(x.v, w.narrow(0, 2 * e, e), rows(call.in_proj_bias, 2 * e, e))};
}

/// A projection weight or bias of the expected shape, in Python's words if not.
TensorView checked_part(const std::optional<TensorView>& tensor, const char* what,
                        const std::vector<std::int64_t>& expected, const Call& call) {
  if (!std::ranges::equal(tensor->sizes(), expected)) {
    fail(call.who, std::string("expecting ") + what + " shape of " + tuple_text(expected) +
                       ", but got " + torch_size(tensor->sizes()));
  }
  return *tensor;
}

/// Python's `_in_projection` with q/k/v_proj_weight and the thirds of in_proj_bias.
Projected separate_projection(const Projected& x, const Call& call) {
  const auto& o = call.options;
  const char* names[] = {"q_proj_weight", "k_proj_weight", "v_proj_weight"};
  const std::optional<TensorView>* weights[] = {&o.q_proj_weight, &o.k_proj_weight,
                                                &o.v_proj_weight};
  for (int i = 0; i < 3; ++i) {
    if (!*weights[i]) {
      fail(call.who, std::string("use_separate_proj_weight is True but ") + names[i] + " is None");
    }
  }
  const std::int64_t eq = x.q.size(-1), ek = x.k.size(-1), ev = x.v.size(-1);
  const TensorView wq = checked_part(o.q_proj_weight, "query weights", {eq, eq}, call);
  const TensorView wk = checked_part(o.k_proj_weight, "key weights", {eq, ek}, call);
  const TensorView wv = checked_part(o.v_proj_weight, "value weights", {eq, ev}, call);
  std::optional<TensorView> bq, bk, bv;
  if (call.in_proj_bias) {
    // Python's in_proj_bias.chunk(3): parts of ceil(n / 3), the last one shorter.
    const std::int64_t n = call.in_proj_bias->size(0), part = (n + 2) / 3;
    const auto chunk = [&](std::int64_t i) {
      const std::int64_t start = std::min(i * part, n);
      return rows(call.in_proj_bias, start, std::min(part, n - start));
    };
    bq = checked_part(chunk(0), "query bias", {eq}, call);
    bk = checked_part(chunk(1), "key bias", {eq}, call);
    bv = checked_part(chunk(2), "value bias", {eq}, call);
  }
  return {call.project(x.q, wq, bq), call.project(x.k, wk, bk), call.project(x.v, wv, bv)};
}

/// Python's checks of key and value against each other.
void check_key_value(const Projected& x, const Call& call) {
  const auto key_sizes = x.k.sizes(), value_sizes = x.v.sizes();
  if (call.options.use_separate_proj_weight) {
    if (key_sizes[0] != value_sizes[0] || key_sizes[1] != value_sizes[1]) {
      fail(call.who, "key's sequence and batch dims " + torch_size(key_sizes.first(2)) +
                         " do not match value's " + torch_size(value_sizes.first(2)));
    }
  } else if (!std::ranges::equal(key_sizes, value_sizes)) {
    fail(call.who, "key shape " + torch_size(key_sizes) + " does not match value shape " +
                       torch_size(value_sizes));
  }
}

/// The attention mask as [1 or batch * heads, target, source], checked like Python.
void check_attn_mask(std::optional<Tensor>& attn_mask, std::int64_t target, std::int64_t source,
                     std::int64_t heads, const Call& call) {
  if (!attn_mask) return;
  if (attn_mask->dim() == 2) {
    const std::vector<std::int64_t> expected{target, source};
    if (!std::ranges::equal(attn_mask->sizes(), expected)) {
      fail(call.who, "The shape of the 2D attn_mask is " + torch_size(attn_mask->sizes()) +
                         ", but should be " + tuple_text(expected) + ".");
    }
    attn_mask = Tensor(attn_mask->unsqueeze(0));
  } else if (attn_mask->dim() == 3) {
    const std::vector<std::int64_t> expected{heads, target, source};
    if (!std::ranges::equal(attn_mask->sizes(), expected)) {
      fail(call.who, "The shape of the 3D attn_mask is " + torch_size(attn_mask->sizes()) +
                         ", but should be " + tuple_text(expected) + ".");
    }
  } else {
    fail(call.who,
         "attn_mask's dimension " + std::to_string(attn_mask->dim()) + " is not supported");
  }
}

/// Appends one zero column to the last dimension of a mask (Python's pad(mask, (0, 1))).
void pad_mask(std::optional<Tensor>& mask) {
  if (mask) mask = pad(*mask, {0, 1});
}

/// A static key or value in place of the projected one, checked like Python.
Tensor static_heads(const TensorView& given, const char* name, std::int64_t heads,
                    std::int64_t head_dim, const Call& call) {
  if (given.size(0) != heads) {
    fail(call.who, std::string("expecting ") + name + ".size(0) of " + std::to_string(heads) +
                       ", but got " + std::to_string(given.size(0)));
  }
  if (given.size(2) != head_dim) {
    fail(call.who, std::string("expecting ") + name + ".size(2) of " + std::to_string(head_dim) +
                       ", but got " + std::to_string(given.size(2)));
  }
  return given.to_owned();
}

/// [sequence, batch, embed] -> [batch * heads, sequence, head_dim].
Tensor split_heads(const Tensor& x, std::int64_t heads, std::int64_t head_dim) {
  return Tensor(x.reshape({x.size(0), heads, head_dim}).transpose(0, 1));
}

}  // namespace

std::optional<Tensor> canonical_mask(const std::optional<TensorView>& mask, const char* name,
                                     DType dtype, const std::string& who) {
  if (!mask) return std::nullopt;
  if (mask->dtype() == DType::Bool) {
    const Tensor zero = zeros_like(*mask, dtype);
    const Tensor minus_infinity = tensor(-std::numeric_limits<double>::infinity(), dtype);
    return zero.masked_fill(*mask, minus_infinity);
  }
  if (!is_floating_point(mask->dtype())) {
    fail(who, std::string("only bool and floating types of ") + name + " are supported");
  }
  return mask->to_owned();
}

std::tuple<Tensor, Tensor> multi_head_attention_forward(
    const TensorView& query, const TensorView& key, const TensorView& value,
    std::int64_t embed_dim_to_check, std::int64_t num_heads,
    const std::optional<TensorView>& in_proj_weight, const std::optional<TensorView>& in_proj_bias,
    const std::optional<TensorView>& bias_k, const std::optional<TensorView>& bias_v,
    bool add_zero_attn, double dropout_p, const TensorView& out_proj_weight,
    const std::optional<TensorView>& out_proj_bias, const MultiHeadAttentionForwardOptions& options,
    const std::string& who, Projection project) {
  const Call call{in_proj_weight, in_proj_bias, bias_k, bias_v, options, who, project};
  const bool batched = check_shapes(query, key, value, call, num_heads);
  // Python's identities do not survive the unsqueeze of unbatched inputs.
  Identities same;
  same.key_is_value = batched && aten::is_set_to(key, value);
  same.query_is_key = same.key_is_value && aten::is_set_to(query, key);
  Projected x{query.to_owned(), key.to_owned(), value.to_owned()};
  std::optional<Tensor> key_padding_mask =
      canonical_mask(options.key_padding_mask, "key_padding_mask", query.dtype(), who);
  if (!batched) {
    x = {Tensor(x.q.unsqueeze(1)), Tensor(x.k.unsqueeze(1)), Tensor(x.v.unsqueeze(1))};
    if (key_padding_mask) key_padding_mask = Tensor(key_padding_mask->unsqueeze(0));
  }
  const std::int64_t target_length = x.q.size(0), batch = x.q.size(1), embed_dim = x.q.size(2);
  bool is_causal = options.is_causal;
  if (is_causal && !options.attn_mask) {
    fail(who,
         "Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
         "method `generate_square_subsequent_mask` to create this mask.");
  }
  std::optional<Tensor> attn_mask;
  if (!(is_causal && !key_padding_mask && !options.need_weights)) {
    // (else scaled_dot_product_attention applies the causal mask itself)
    attn_mask = canonical_mask(options.attn_mask, "attn_mask", query.dtype(), who);
    if (key_padding_mask) is_causal = false;
  }
  if (embed_dim != embed_dim_to_check) {
    fail(who, "was expecting embedding dimension of " + std::to_string(embed_dim_to_check) +
                  ", but got " + std::to_string(embed_dim));
  }
  const std::int64_t head_dim = embed_dim / num_heads;
  if (head_dim * num_heads != embed_dim) {
    fail(who, "embed_dim " + std::to_string(embed_dim) + " not divisible by num_heads " +
                  std::to_string(num_heads));
  }
  check_key_value(x, call);
  x = options.use_separate_proj_weight ? separate_projection(x, call)
                                       : packed_projection(x, same, call);

  const std::int64_t heads = batch * num_heads;
  check_attn_mask(attn_mask, target_length, x.k.size(0), heads, call);
  if (bias_k && bias_v) {
    if (options.static_k) fail(who, "bias cannot be added to static key.");
    if (options.static_v) fail(who, "bias cannot be added to static value.");
    x.k = fp::cat({x.k, aten::repeat(*bias_k, {1, batch, 1})}, 0);
    x.v = fp::cat({x.v, aten::repeat(*bias_v, {1, batch, 1})}, 0);
    pad_mask(attn_mask);
    pad_mask(key_padding_mask);
  } else if (bias_k) {
    fail(who, "bias_k is set but bias_v is None");
  } else if (bias_v) {
    fail(who, "bias_v is set but bias_k is None");
  }

  Tensor q = split_heads(x.q, heads, head_dim);
  Tensor k = options.static_k ? static_heads(*options.static_k, "static_k", heads, head_dim, call)
                              : split_heads(x.k, heads, head_dim);
  Tensor v = options.static_v ? static_heads(*options.static_v, "static_v", heads, head_dim, call)
                              : split_heads(x.v, heads, head_dim);
  if (add_zero_attn) {
    const Tensor k_zero = zeros({heads, 1, head_dim}, TensorOptions(k.dtype(), k.device()));
    const Tensor v_zero = zeros({heads, 1, head_dim}, TensorOptions(v.dtype(), v.device()));
    k = fp::cat({k, k_zero}, 1);
    v = fp::cat({v, v_zero}, 1);
    pad_mask(attn_mask);
    pad_mask(key_padding_mask);
  }
  const std::int64_t source_length = k.size(1);
  if (key_padding_mask) {
    // Python's _check_key_padding_mask (the mask is 2-D here).
    const std::int64_t expected[] = {batch, source_length};
    for (int d = 0; d < 2; ++d) {
      if (key_padding_mask->size(d) != expected[d]) {
        fail(who, "Expected key_padded_mask.shape[" + std::to_string(d) + "] to be " +
                      std::to_string(expected[d]) + ", but got " +
                      std::to_string(key_padding_mask->size(d)));
      }
    }
    const Tensor per_batch = key_padding_mask->reshape({batch, 1, 1, source_length});
    Tensor merged = per_batch.expand({-1, num_heads, -1, -1}).reshape({heads, 1, source_length});
    attn_mask = attn_mask ? *attn_mask + merged : std::move(merged);
  }
  const double dropout_probability = options.training ? dropout_p : 0.0;

  Tensor output, weights;
  if (options.need_weights) {
    const Tensor q_scaled = q * std::sqrt(1.0 / static_cast<double>(head_dim));
    const TensorView k_transposed = k.transpose(-2, -1);
    if (!attn_mask) {
      weights = softmax(q_scaled.bmm(k_transposed), -1);
    } else if (q.device().is_cpu() || q.device().is_cuda()) {
      // Python's baddbmm(attn_mask, q, k^T): its Scalars reach libtorch's
      // kernel through the backend shim.
      Tensor scores =
          empty({heads, target_length, source_length}, TensorOptions(q.dtype(), q.device()));
      aten::shim::baddbmm_out(*attn_mask, q_scaled, k_transposed, 1.0, 1.0, scores);
      weights = softmax(scores, -1);
    } else {
      // No shim reaches other devices: mask + (q k^T), which may round differently.
      weights = softmax(*attn_mask + q_scaled.bmm(k_transposed), -1);
    }
    if (dropout_probability > 0.0) {
      weights = functional::dropout(weights, {.p = dropout_probability});
    }
    const Tensor attended = weights.bmm(v);
    const Tensor rows_first = attended.transpose(0, 1).reshape({target_length * batch, embed_dim});
    output = linear(rows_first, out_proj_weight, out_proj_bias);
    output = output.reshape({target_length, batch, output.size(1)});
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
    const Tensor attended = scaled_dot_product_attention(
        q, k, v,
        {.attn_mask = mask_view, .dropout_p = dropout_probability, .is_causal = is_causal});
    const Tensor rows_first =
        attended.permute({2, 0, 1, 3}).reshape({batch * target_length, embed_dim});
    output = linear(rows_first, out_proj_weight, out_proj_bias);
    output = output.reshape({target_length, batch, output.size(1)});
  }
  if (!batched) output = Tensor(output.squeeze(1));
  return {std::move(output), std::move(weights)};
}

}  // namespace detail

namespace {

Tensor plain_linear(TensorView input, TensorView weight, const std::optional<TensorView>& bias) {
  return linear(input, weight, bias);
}

}  // namespace

std::tuple<Tensor, Tensor> multi_head_attention_forward(
    const TensorView& query, const TensorView& key, const TensorView& value,
    std::int64_t embed_dim_to_check, std::int64_t num_heads,
    const std::optional<TensorView>& in_proj_weight, const std::optional<TensorView>& in_proj_bias,
    const std::optional<TensorView>& bias_k, const std::optional<TensorView>& bias_v,
    bool add_zero_attn, double dropout_p, const TensorView& out_proj_weight,
    const std::optional<TensorView>& out_proj_bias,
    const MultiHeadAttentionForwardOptions& options) {
  return detail::multi_head_attention_forward(
      query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k,
      bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, options,
      "fp::functional::multi_head_attention_forward", &plain_linear);
}

}  // namespace fp::functional
