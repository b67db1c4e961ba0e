// The Transformer family: torch.nn.TransformerEncoderLayer, TransformerEncoder,
// TransformerDecoderLayer, TransformerDecoder and Transformer.
// https://pytorch.org/docs/stable/nn.html#transformer-layers
//
//     fp::nn::TransformerEncoderLayer layer(512, 8, {.dim_feedforward = 2048, .batch_first = true});
//     fp::nn::TransformerEncoder encoder(layer, 6, {.norm = fp::nn::LayerNorm(512)});
//     fp::Tensor memory = encoder(src);
//     fp::Tensor padded = encoder.forward(src, {.src_key_padding_mask = padding});
//
// Results equal Python's under torch.no_grad() in eval mode, bit for bit,
// because the same computation runs: where PyTorch takes its fast path (its
// conditions are checked here in its order: batch_first, an even number of
// heads, biases, relu or gelu, no float masks, ...), the fused
// aten::_transformer_encoder_layer_fwd, with nested tensors for a key padding
// mask in TransformerEncoder; elsewhere the layers step by step, through
// MultiheadAttention, which makes the same choice for itself.
// fp::nn::backends::mha::set_fastpath_enabled(false) turns the fast paths off,
// like torch.backends.mha.set_fastpath_enabled(False). The first nested
// tensor makes libtorch print its one-time warning that nested tensors are a
// prototype (to stderr; Python shows it as a UserWarning).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "flash_powder/base/device.h"
#include "flash_powder/base/dtype.h"
#include "flash_powder/nn/define.h"
#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/nn/layers/attention.h"
#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/layers/dropout.h"
#include "flash_powder/nn/layers/linear.h"
#include "flash_powder/nn/layers/normalization.h"
#include "flash_powder/nn/module.h"

namespace fp::nn {

/// The feed-forward activation of the Transformer layers, Python's
/// `activation=`: "relu" or "gelu" (F.relu, F.gelu), an nn::ReLU or nn::GELU
/// module, or any function of a tensor.
///
/// As in PyTorch, only relu and gelu allow the fused fast path, and any
/// GELU module counts as gelu there: PyTorch's fused kernel then applies the
/// exact gelu even for `GELU("tanh")`, and so does this.
class TransformerActivation {
 public:
  using Function = std::function<Tensor(TensorView)>;
  // Implicit on purpose: Python's `activation="gelu"` or `activation=F.relu`.
  // NOLINTBEGIN(google-explicit-constructor)
  /// "relu" or "gelu"; throws fp::Error for anything else, like Python.
  TransformerActivation(const char* name);
  TransformerActivation(const std::string& name);
  TransformerActivation(const ReLU& module);
  TransformerActivation(const GELU& module);
  TransformerActivation(Function function);
  /// Any other callable taking a TensorView and returning a Tensor (a lambda).
  template <class F>
  requires(std::is_invocable_r_v<Tensor, const F&, TensorView> &&
           !std::is_convertible_v<const F&, std::string> &&
           !std::is_same_v<std::remove_cvref_t<F>, Function> &&
           !std::is_base_of_v<Module, std::remove_cvref_t<F>>) TransformerActivation(F function)
      : TransformerActivation(Function(std::move(function))) {}
  // NOLINTEND(google-explicit-constructor)

  /// PyTorch's `activation_relu_or_gelu`: 1 for relu, 2 for gelu, 0 otherwise.
  int relu_or_gelu() const { return relu_or_gelu_; }
  Tensor operator()(TensorView input) const;

 private:
  int relu_or_gelu_ = 1;
  /// Empty for relu and for gelu by name.
  Function function_;
  std::string approximate_ = "none";
};

/// The keyword arguments of torch.nn.TransformerEncoderLayer and
/// TransformerDecoderLayer, with PyTorch's defaults.
struct TransformerLayerOptions {
  std::int64_t dim_feedforward = 2048;
  /// Only used in training, which flash_powder does not do.
  double dropout = 0.1;
  TransformerActivation activation = "relu";
  double layer_norm_eps = 1e-5;
  bool batch_first = false;
  bool norm_first = false;
  bool bias = true;
  std::optional<Device> device{};
  std::optional<DType> dtype{};
};
using TransformerEncoderLayerOptions = TransformerLayerOptions;
using TransformerDecoderLayerOptions = TransformerLayerOptions;

/// The keyword arguments of TransformerEncoderLayer.forward.
struct TransformerEncoderLayerForwardOptions {
  /// [seq, seq] or [batch * heads, seq, seq]: bool (true = do not attend) or additive float.
  std::optional<TensorView> src_mask{};
  /// [batch, seq] (or [seq] unbatched): true (or -inf) marks padding.
  std::optional<TensorView> src_key_padding_mask{};
  /// A hint that src_mask is the causal mask (it must still be given).
  bool is_causal = false;
};

/// Self-attention and a feed-forward block, each with a residual connection
/// and LayerNorm. https://pytorch.org/docs/stable/generated/torch.nn.TransformerEncoderLayer.html
class TransformerEncoderLayer : public Module {
 public:
  TransformerEncoderLayer(std::int64_t d_model, std::int64_t nhead,
                          const TransformerEncoderLayerOptions& options = {});

  MultiheadAttention self_attn;
  Linear linear1;
  Dropout dropout;
  Linear linear2;
  LayerNorm norm1;
  LayerNorm norm2;
  Dropout dropout1;
  Dropout dropout2;
  TransformerActivation activation;
  bool norm_first;
  FP_MODULE(self_attn, linear1, dropout, linear2, norm1, norm2, dropout1, dropout2)

  Tensor forward(TensorView src) const override;
  Tensor forward(TensorView src, const TransformerEncoderLayerForwardOptions& options) const;

  /// Why PyTorch's fast path would not be taken ("" when it would), in its words.
  std::string why_not_fast_path(TensorView src, const std::optional<Tensor>& src_mask,
                                const std::optional<Tensor>& src_key_padding_mask,
                                bool src_is_nested = false) const;
  /// The fused kernel on `src` (a nested tensor too) with masks already canonical.
  Tensor fast_path(TensorView src, const std::optional<Tensor>& src_mask,
                   const std::optional<Tensor>& src_key_padding_mask) const;

 private:
  Tensor self_attention_block(TensorView x, const std::optional<Tensor>& attn_mask,
                              const std::optional<Tensor>& key_padding_mask, bool is_causal) const;
  Tensor feed_forward_block(TensorView x) const;
};

/// The keyword arguments of torch.nn.TransformerEncoder.
struct TransformerEncoderOptions {
  /// Python's `norm`: a LayerNorm after the last layer, or none.
  std::optional<LayerNorm> norm{};
  /// Run a key-padded batch as a nested tensor where PyTorch does.
  bool enable_nested_tensor = true;
  /// Check that the padding mask is left-aligned before using nested tensors.
  bool mask_check = true;
};

/// The keyword arguments of TransformerEncoder.forward.
struct TransformerEncoderForwardOptions {
  std::optional<TensorView> mask{};
  std::optional<TensorView> src_key_padding_mask{};
  /// Whether `mask` is causal; detected from the mask when absent, as in Python.
  std::optional<bool> is_causal{};
};

/// A stack of `num_layers` copies of an encoder layer (keys `layers.0.…`,
/// `norm.…`). https://pytorch.org/docs/stable/generated/torch.nn.TransformerEncoder.html
class TransformerEncoder : public Module {
 public:
  TransformerEncoder(const TransformerEncoderLayer& encoder_layer, std::int64_t num_layers,
                     const TransformerEncoderOptions& options = {});
  /// Python's `TransformerEncoder(layer, num_layers, norm)`, `norm` given
  /// positionally. Throws fp::Error when `options.norm` is set as well.
  TransformerEncoder(const TransformerEncoderLayer& encoder_layer, std::int64_t num_layers,
                     LayerNorm norm, TransformerEncoderOptions options = {});

  ModuleListOf<TransformerEncoderLayer> layers;
  std::optional<LayerNorm> norm;
  std::int64_t num_layers;
  bool enable_nested_tensor;
  /// Set at construction, as in Python: whether the layers allow nested tensors.
  bool use_nested_tensor;
  bool mask_check;
  FP_MODULE(layers, norm)

  Tensor forward(TensorView src) const override;
  Tensor forward(TensorView src, const TransformerEncoderForwardOptions& options) const;
};

/// The keyword arguments of TransformerDecoderLayer.forward and TransformerDecoder.forward.
struct TransformerDecoderForwardOptions {
  std::optional<TensorView> tgt_mask{};
  std::optional<TensorView> memory_mask{};
  std::optional<TensorView> tgt_key_padding_mask{};
  std::optional<TensorView> memory_key_padding_mask{};
  /// For TransformerDecoder detected from tgt_mask when absent; a layer takes false.
  std::optional<bool> tgt_is_causal{};
  bool memory_is_causal = false;
};

/// Self-attention, attention over the encoder's output (memory), and a
/// feed-forward block. https://pytorch.org/docs/stable/generated/torch.nn.TransformerDecoderLayer.html
class TransformerDecoderLayer : public ModuleBase {
 public:
  TransformerDecoderLayer(std::int64_t d_model, std::int64_t nhead,
                          const TransformerDecoderLayerOptions& options = {});

  MultiheadAttention self_attn;
  MultiheadAttention multihead_attn;
  Linear linear1;
  Dropout dropout;
  Linear linear2;
  LayerNorm norm1;
  LayerNorm norm2;
  LayerNorm norm3;
  Dropout dropout1;
  Dropout dropout2;
  Dropout dropout3;
  TransformerActivation activation;
  bool norm_first;
  FP_MODULE(self_attn, multihead_attn, linear1, dropout, linear2, norm1, norm2, norm3, dropout1,
            dropout2, dropout3)

  Tensor forward(TensorView tgt, TensorView memory,
                 const TransformerDecoderForwardOptions& options = {}) const;
};

/// A stack of decoder layers. https://pytorch.org/docs/stable/generated/torch.nn.TransformerDecoder.html
class TransformerDecoder : public ModuleBase {
 public:
  TransformerDecoder(const TransformerDecoderLayer& decoder_layer, std::int64_t num_layers,
                     std::optional<LayerNorm> norm = std::nullopt);

  ModuleListOf<TransformerDecoderLayer> layers;
  std::optional<LayerNorm> norm;
  std::int64_t num_layers;
  FP_MODULE(layers, norm)

  Tensor forward(TensorView tgt, TensorView memory,
                 const TransformerDecoderForwardOptions& options = {}) const;
};

/// The keyword arguments of torch.nn.Transformer, with PyTorch's defaults
/// (Python's custom_encoder and custom_decoder are not offered).
struct TransformerOptions {
  std::int64_t d_model = 512;
  std::int64_t nhead = 8;
  std::int64_t num_encoder_layers = 6;
  std::int64_t num_decoder_layers = 6;
  std::int64_t dim_feedforward = 2048;
  double dropout = 0.1;
  TransformerActivation activation = "relu";
  double layer_norm_eps = 1e-5;
  bool batch_first = false;
  bool norm_first = false;
  bool bias = true;
  std::optional<Device> device{};
  std::optional<DType> dtype{};
};

/// The keyword arguments of Transformer.forward.
struct TransformerForwardOptions {
  std::optional<TensorView> src_mask{};
  std::optional<TensorView> tgt_mask{};
  std::optional<TensorView> memory_mask{};
  std::optional<TensorView> src_key_padding_mask{};
  std::optional<TensorView> tgt_key_padding_mask{};
  std::optional<TensorView> memory_key_padding_mask{};
  std::optional<bool> src_is_causal{};
  std::optional<bool> tgt_is_causal{};
  bool memory_is_causal = false;
};

/// An encoder and a decoder. https://pytorch.org/docs/stable/generated/torch.nn.Transformer.html
class Transformer : public ModuleBase {
 public:
  explicit Transformer(const TransformerOptions& options = {});

  TransformerEncoder encoder;
  TransformerDecoder decoder;
  std::int64_t d_model;
  std::int64_t nhead;
  bool batch_first;
  FP_MODULE(encoder, decoder)

  Tensor forward(TensorView src, TensorView tgt,
                 const TransformerForwardOptions& options = {}) const;

  /// [size, size]: -inf above the diagonal, 0 elsewhere (float32 unless `dtype`).
  static Tensor generate_square_subsequent_mask(std::int64_t size,
                                                std::optional<Device> device = std::nullopt,
                                                std::optional<DType> dtype = std::nullopt);
};

}  // namespace fp::nn
