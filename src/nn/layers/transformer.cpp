#include "flash_powder/nn/layers/transformer.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "flash_powder/aten/aten.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/functional/activation.h"
#include "masks.h"
#include "nn/messages.h"
#include "parameters.h"

// torch/nn/modules/transformer.py, step by step (eval mode, under no_grad).

namespace fp::nn {
namespace {

using detail::canonical_mask;
using detail::fail;

/// A view of an optional Tensor.
std::optional<TensorView> view_of(const std::optional<Tensor>& tensor) {
  if (!tensor) return std::nullopt;
  return TensorView(*tensor);
}

/// Python's `_get_seq_len`: None for a nested tensor.
std::optional<std::int64_t> sequence_length(TensorView src, bool batch_first, bool nested) {
  if (nested) return std::nullopt;
  if (src.dim() == 2) return src.size(0);
  return src.size(batch_first ? 1 : 0);
}

MultiheadAttentionOptions attention_options(const TransformerLayerOptions& options) {
  return {.dropout = options.dropout,
          .bias = options.bias,
          .batch_first = options.batch_first,
          .device = options.device,
          .dtype = options.dtype};
}

LayerNormOptions norm_options(const TransformerLayerOptions& options) {
  return {.eps = options.layer_norm_eps,
          .bias = options.bias,
          .device = options.device,
          .dtype = options.dtype};
}

LinearOptions linear_options(const TransformerLayerOptions& options) {
  return {.bias = options.bias, .device = options.device, .dtype = options.dtype};
}

}  // namespace

// --- TransformerActivation -------------------------------------------------

TransformerActivation::TransformerActivation(const char* name)
    : TransformerActivation(std::string(name)) {}

TransformerActivation::TransformerActivation(const std::string& name) {
  if (name == "relu") {
    relu_or_gelu_ = 1;
  } else if (name == "gelu") {
    relu_or_gelu_ = 2;
  } else {
    throw Error(ErrorCode::BadArgument,
                "fp::nn::TransformerActivation: activation should be relu/gelu, not " + name);
  }
}

TransformerActivation::TransformerActivation(const ReLU& /*module*/) : relu_or_gelu_(1) {}

TransformerActivation::TransformerActivation(const GELU& module)
    : relu_or_gelu_(2), approximate_(module.approximate) {}

TransformerActivation::TransformerActivation(Function function)
    : relu_or_gelu_(0), function_(std::move(function)) {
  if (!function_) {
    throw Error(ErrorCode::BadArgument, "fp::nn::TransformerActivation: the function is empty");
  }
}

Tensor TransformerActivation::operator()(TensorView input) const {
  if (relu_or_gelu_ == 1) return functional::relu(input);
  if (relu_or_gelu_ == 2) return functional::gelu(input, {.approximate = approximate_});
  return function_(input);
}

// --- TransformerEncoderLayer -------------------------------------------------

TransformerEncoderLayer::TransformerEncoderLayer(std::int64_t d_model, std::int64_t nhead,
                                                 const TransformerEncoderLayerOptions& options)
    : self_attn(d_model, nhead, attention_options(options)),
      linear1(d_model, options.dim_feedforward, linear_options(options)),
      dropout(options.dropout),
      linear2(options.dim_feedforward, d_model, linear_options(options)),
      norm1(d_model, norm_options(options)),
      norm2(d_model, norm_options(options)),
      dropout1(options.dropout),
      dropout2(options.dropout),
      activation(options.activation),
      norm_first(options.norm_first) {}

std::string TransformerEncoderLayer::why_not_fast_path(
    TensorView src, const std::optional<Tensor>& src_mask,
    const std::optional<Tensor>& src_key_padding_mask, bool src_is_nested) const {
  // TransformerEncoderLayer.forward's conditions, in its order and words.
  if (!backends::mha::get_fastpath_enabled()) {
    return "torch.backends.mha.get_fastpath_enabled() was not True";
  }
  if (src.dim() != 3) {
    return "input not batched; expected src.dim() of 3 but got " + std::to_string(src.dim());
  }
  if (!self_attn.options.batch_first) return "self_attn.batch_first was not True";
  if (!self_attn.in_proj_bias.is_defined()) return "self_attn was passed bias=False";
  if (!self_attn.in_proj_weight.is_defined()) return "self_attn._qkv_same_embed_dim was not True";
  if (activation.relu_or_gelu() == 0) return "activation_relu_or_gelu was not True";
  if (norm1.options.eps != norm2.options.eps) return "norm1.eps is not equal to norm2.eps";
  if (src_is_nested && (src_key_padding_mask || src_mask)) {
    return "neither src_key_padding_mask nor src_mask are not supported with NestedTensor input";
  }
  if (self_attn.num_heads % 2 == 1) return "num_head is odd";
  const Tensor* parameters[] = {&self_attn.in_proj_weight,
                                &self_attn.in_proj_bias,
                                &self_attn.out_proj.weight,
                                &self_attn.out_proj.bias,
                                &norm1.weight,
                                &norm1.bias,
                                &norm2.weight,
                                &norm2.bias,
                                &linear1.weight,
                                &linear1.bias,
                                &linear2.weight,
                                &linear2.bias};
  bool devices = detail::fast_path_device(src);
  for (const Tensor* parameter : parameters) {
    if (parameter->is_defined() && !detail::fast_path_device(*parameter)) devices = false;
  }
  if (!devices) return "some Tensor argument's device is neither one of cpu, cuda";
  return "";
}

Tensor TransformerEncoderLayer::fast_path(TensorView src, const std::optional<Tensor>& src_mask,
                                          const std::optional<Tensor>& src_key_padding_mask) const {
  std::optional<Tensor> merged;
  std::optional<std::int64_t> mask_type;
  if (src_mask || src_key_padding_mask) {
    std::tie(merged, mask_type) = self_attn.merge_masks(src_mask, src_key_padding_mask, src);
  }
  return aten::_transformer_encoder_layer_fwd(
      src, self_attn.embed_dim, self_attn.num_heads, self_attn.in_proj_weight,
      self_attn.in_proj_bias, self_attn.out_proj.weight, self_attn.out_proj.bias,
      activation.relu_or_gelu() == 2, norm_first, norm1.options.eps, norm1.weight, norm1.bias,
      norm2.weight, norm2.bias, linear1.weight, linear1.bias, linear2.weight, linear2.bias,
      view_of(merged), mask_type);
}

Tensor TransformerEncoderLayer::self_attention_block(TensorView x,
                                                     const std::optional<Tensor>& attn_mask,
                                                     const std::optional<Tensor>& key_padding_mask,
                                                     bool is_causal) const {
  auto [output, weights] = self_attn.forward(x, x, x,
                                             {.key_padding_mask = view_of(key_padding_mask),
                                              .need_weights = false,
                                              .attn_mask = view_of(attn_mask),
                                              .is_causal = is_causal});
  return output;  // dropout1: the identity in eval mode
}

Tensor TransformerEncoderLayer::feed_forward_block(TensorView x) const {
  const Tensor hidden = activation(linear1(x));
  return linear2(hidden);  // dropout and dropout2: the identity in eval mode
}

Tensor TransformerEncoderLayer::forward(TensorView src) const {
  return forward(src, TransformerEncoderLayerForwardOptions{});
}

Tensor TransformerEncoderLayer::forward(
    TensorView src, const TransformerEncoderLayerForwardOptions& options) const {
  const std::optional<Tensor> key_padding_mask = canonical_mask(
      options.src_key_padding_mask, "src_key_padding_mask", src.dtype(), "TransformerEncoderLayer");
  const std::optional<Tensor> src_mask =
      canonical_mask(options.src_mask, "src_mask", src.dtype(), "TransformerEncoderLayer");
  if (why_not_fast_path(src, src_mask, key_padding_mask).empty()) {
    return fast_path(src, src_mask, key_padding_mask);
  }
  // Fig. 1 of https://arxiv.org/pdf/2002.04745v1.pdf
  if (norm_first) {
    const Tensor normed = norm1(src);
    const Tensor x =
        src + self_attention_block(normed, src_mask, key_padding_mask, options.is_causal);
    const Tensor normed2 = norm2(x);
    return x + feed_forward_block(normed2);
  }
  const Tensor attended =
      src + self_attention_block(src, src_mask, key_padding_mask, options.is_causal);
  const Tensor x = norm1(attended);
  const Tensor fed = x + feed_forward_block(x);
  return norm2(fed);
}

// --- TransformerEncoder ------------------------------------------------------

TransformerEncoder::TransformerEncoder(const TransformerEncoderLayer& encoder_layer,
                                       std::int64_t num_layers,
                                       const TransformerEncoderOptions& options)
    : layers(num_layers, encoder_layer),
      norm(options.norm),
      num_layers(num_layers),
      enable_nested_tensor(options.enable_nested_tensor),
      use_nested_tensor(options.enable_nested_tensor),
      mask_check(options.mask_check) {
  // Python's reasons for not using nested tensors (it warns; this is silent).
  const MultiheadAttention& attention = encoder_layer.self_attn;
  const bool layer_allows = !encoder_layer.norm_first && attention.options.batch_first &&
                            attention.in_proj_weight.is_defined() &&
                            attention.in_proj_bias.is_defined() &&
                            encoder_layer.activation.relu_or_gelu() != 0 &&
                            encoder_layer.norm1.options.eps == encoder_layer.norm2.options.eps &&
                            attention.num_heads % 2 == 0;
  if (!layer_allows) use_nested_tensor = false;
}

namespace {

TransformerEncoderOptions with_norm(LayerNorm norm, TransformerEncoderOptions options) {
  if (options.norm) {
    throw Error(ErrorCode::BadArgument,
                "TransformerEncoder: norm is given twice, positionally and as options.norm; "
                "give it once");
  }
  options.norm = std::move(norm);
  return options;
}

}  // namespace

TransformerEncoder::TransformerEncoder(const TransformerEncoderLayer& encoder_layer,
                                       std::int64_t num_layers, LayerNorm norm,
                                       TransformerEncoderOptions options)
    : TransformerEncoder(encoder_layer, num_layers,
                         with_norm(std::move(norm), std::move(options))) {}

Tensor TransformerEncoder::forward(TensorView src) const {
  return forward(src, TransformerEncoderForwardOptions{});
}

Tensor TransformerEncoder::forward(TensorView src,
                                   const TransformerEncoderForwardOptions& options) const {
  if (layers.empty()) fail("TransformerEncoder", "has no layers");
  const std::optional<Tensor> key_padding_mask = canonical_mask(
      options.src_key_padding_mask, "src_key_padding_mask", src.dtype(), "TransformerEncoder");
  const std::optional<Tensor> mask =
      canonical_mask(options.mask, "mask", src.dtype(), "TransformerEncoder");
  const TransformerEncoderLayer& first_layer = layers[0];
  const bool batch_first = first_layer.self_attn.options.batch_first;
  // Python's conditions for running the layers on a nested tensor.
  bool nested = backends::mha::get_fastpath_enabled() && use_nested_tensor && src.dim() == 3 &&
                key_padding_mask.has_value();
  if (nested && mask_check) {
    const Tensor keep = aten::logical_not(*key_padding_mask);
    nested = aten::_nested_tensor_from_mask_left_aligned(src, keep);
  }
  nested = nested && !mask && detail::fast_path_device(src);
  const bool is_causal = detail::detect_is_causal_mask(view_of(mask), options.is_causal,
                                                       sequence_length(src, batch_first, false));
  Tensor output;
  if (nested) {
    const Tensor keep = aten::logical_not(*key_padding_mask);
    Tensor nested_output = aten::_nested_tensor_from_mask(src, keep, false);
    for (const TransformerEncoderLayer& layer : layers) {
      const std::string why = layer.why_not_fast_path(nested_output, std::nullopt, std::nullopt,
                                                      /*src_is_nested=*/true);
      if (!why.empty()) {
        fail("TransformerEncoder",
             "MultiheadAttention does not support NestedTensor outside of its fast path. The "
             "fast path was not hit because " +
                 why);
      }
      nested_output = layer.fast_path(nested_output, std::nullopt, std::nullopt);
    }
    output = aten::to_padded_tensor(nested_output, 0.0, src.sizes());
  } else {
    output = Tensor(src);
    for (const TransformerEncoderLayer& layer : layers) {
      output = layer.forward(output, {.src_mask = view_of(mask),
                                      .src_key_padding_mask = view_of(key_padding_mask),
                                      .is_causal = is_causal});
    }
  }
  if (norm) output = (*norm)(output);
  return output;
}

// --- TransformerDecoderLayer -------------------------------------------------

TransformerDecoderLayer::TransformerDecoderLayer(std::int64_t d_model, std::int64_t nhead,
                                                 const TransformerDecoderLayerOptions& options)
    : self_attn(d_model, nhead, attention_options(options)),
      multihead_attn(d_model, nhead, attention_options(options)),
      linear1(d_model, options.dim_feedforward, linear_options(options)),
      dropout(options.dropout),
      linear2(options.dim_feedforward, d_model, linear_options(options)),
      norm1(d_model, norm_options(options)),
      norm2(d_model, norm_options(options)),
      norm3(d_model, norm_options(options)),
      dropout1(options.dropout),
      dropout2(options.dropout),
      dropout3(options.dropout),
      activation(options.activation),
      norm_first(options.norm_first) {}

Tensor TransformerDecoderLayer::forward(TensorView tgt, TensorView memory,
                                        const TransformerDecoderForwardOptions& options) const {
  const auto self_attention = [&](TensorView x) {
    return std::get<0>(self_attn.forward(x, x, x,
                                         {.key_padding_mask = options.tgt_key_padding_mask,
                                          .need_weights = false,
                                          .attn_mask = options.tgt_mask,
                                          .is_causal = options.tgt_is_causal.value_or(false)}));
  };
  const auto memory_attention = [&](TensorView x) {
    return std::get<0>(multihead_attn.forward(x, memory, memory,
                                              {.key_padding_mask = options.memory_key_padding_mask,
                                               .need_weights = false,
                                               .attn_mask = options.memory_mask,
                                               .is_causal = options.memory_is_causal}));
  };
  const auto feed_forward = [&](TensorView x) {
    const Tensor hidden = activation(linear1(x));
    return linear2(hidden);
  };
  if (norm_first) {
    const Tensor x1 = tgt + self_attention(norm1(tgt));
    const Tensor x2 = x1 + memory_attention(norm2(x1));
    return x2 + feed_forward(norm3(x2));
  }
  const Tensor x1 = norm1(tgt + self_attention(tgt));
  const Tensor x2 = norm2(x1 + memory_attention(x1));
  return norm3(x2 + feed_forward(x2));
}

// --- TransformerDecoder ------------------------------------------------------

TransformerDecoder::TransformerDecoder(const TransformerDecoderLayer& decoder_layer,
                                       std::int64_t num_layers, std::optional<LayerNorm> norm)
    : layers(num_layers, decoder_layer), norm(std::move(norm)), num_layers(num_layers) {}

Tensor TransformerDecoder::forward(TensorView tgt, TensorView memory,
                                   const TransformerDecoderForwardOptions& options) const {
  if (layers.empty()) fail("TransformerDecoder", "has no layers");
  const std::optional<std::int64_t> length =
      sequence_length(tgt, layers[0].self_attn.options.batch_first, false);
  TransformerDecoderForwardOptions per_layer = options;
  per_layer.tgt_is_causal =
      detail::detect_is_causal_mask(options.tgt_mask, options.tgt_is_causal, length);
  Tensor output(tgt);
  for (const TransformerDecoderLayer& layer : layers)
    output = layer(output, memory, per_layer);
  if (norm) output = (*norm)(output);
  return output;
}

// --- Transformer -------------------------------------------------------------

namespace {

TransformerLayerOptions layer_options_of(const TransformerOptions& options) {
  return {.dim_feedforward = options.dim_feedforward,
          .dropout = options.dropout,
          .activation = options.activation,
          .layer_norm_eps = options.layer_norm_eps,
          .batch_first = options.batch_first,
          .norm_first = options.norm_first,
          .bias = options.bias,
          .device = options.device,
          .dtype = options.dtype};
}

LayerNorm final_norm(const TransformerOptions& options) {
  return LayerNorm(options.d_model, {.eps = options.layer_norm_eps,
                                     .bias = options.bias,
                                     .device = options.device,
                                     .dtype = options.dtype});
}

/// Python's Transformer._reset_parameters: xavier_uniform_ for every
/// parameter of more than one dimension.
class XavierInit final : public Visitor {
 protected:
  void on_tensor(std::string_view, Tensor& tensor, TensorKind kind, const BufferOptions&) override {
    if (kind != TensorKind::Parameter || !tensor.is_defined() || tensor.dim() < 2) return;
    std::int64_t receptive = 1;
    for (std::int64_t d = 2; d < tensor.dim(); ++d)
      receptive *= tensor.size(d);
    const std::int64_t fan_in = tensor.size(1) * receptive;
    const std::int64_t fan_out = tensor.size(0) * receptive;
    const double bound = std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
    tensor =
        detail::uniform_init(tensor.sizes(), bound, TensorOptions(tensor.dtype(), tensor.device()));
  }
  void on_child(std::string_view, ModuleBase& module) override { module.visit(*this); }
};

}  // namespace

Transformer::Transformer(const TransformerOptions& options)
    : encoder(TransformerEncoderLayer(options.d_model, options.nhead, layer_options_of(options)),
              options.num_encoder_layers, {.norm = final_norm(options)}),
      decoder(TransformerDecoderLayer(options.d_model, options.nhead, layer_options_of(options)),
              options.num_decoder_layers, final_norm(options)),
      d_model(options.d_model),
      nhead(options.nhead),
      batch_first(options.batch_first) {
  XavierInit init;
  visit(init);
}

Tensor Transformer::forward(TensorView src, TensorView tgt,
                            const TransformerForwardOptions& options) const {
  const bool batched = src.dim() == 3;
  if (batched && src.size(batch_first ? 0 : 1) != tgt.size(batch_first ? 0 : 1)) {
    fail("Transformer", "the batch number of src and tgt must be equal");
  }
  if (src.size(-1) != d_model || tgt.size(-1) != d_model) {
    fail("Transformer", "the feature number of src and tgt must be equal to d_model");
  }
  const Tensor memory = encoder.forward(src, {.mask = options.src_mask,
                                              .src_key_padding_mask = options.src_key_padding_mask,
                                              .is_causal = options.src_is_causal});
  return decoder(
      tgt, memory,
      TransformerDecoderForwardOptions{.tgt_mask = options.tgt_mask,
                                       .memory_mask = options.memory_mask,
                                       .tgt_key_padding_mask = options.tgt_key_padding_mask,
                                       .memory_key_padding_mask = options.memory_key_padding_mask,
                                       .tgt_is_causal = options.tgt_is_causal,
                                       .memory_is_causal = options.memory_is_causal});
}

Tensor Transformer::generate_square_subsequent_mask(std::int64_t size, std::optional<Device> device,
                                                    std::optional<DType> dtype) {
  return detail::square_subsequent_mask(size, dtype.value_or(DType::F32),
                                        device.value_or(Device::cpu()));
}

}  // namespace fp::nn
