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
  /// A function of a tensor.
  using Function = std::function<Tensor(TensorView)>;
  // Implicit on purpose: Python's `activation="gelu"` or `activation=F.relu`.
  // NOLINTBEGIN(google-explicit-constructor)
  /// "relu" or "gelu"; throws fp::Error for anything else, like Python.
  TransformerActivation(const char* name);
  /// "relu" or "gelu"; throws fp::Error for anything else, like Python.
  TransformerActivation(const std::string& name);
  /// F.relu (the module's own `inplace` makes no difference).
  TransformerActivation(const ReLU& module);
  /// F.gelu with the module's `approximate`.
  TransformerActivation(const GELU& module);
  /// Any function of a tensor (no fast path).
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
  /// Applies the activation.
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
  /// The feed-forward block's hidden size.
  std::int64_t dim_feedforward = 2048;
  /// Only used in training, which flash_powder does not do.
  double dropout = 0.1;
  /// "relu", "gelu", a ReLU or GELU module, or any function of a tensor.
  TransformerActivation activation = "relu";
  /// The LayerNorms' eps.
  double layer_norm_eps = 1e-5;
  /// Inputs and outputs are [batch, seq, feature] rather than [seq, batch, feature].
  bool batch_first = false;
  /// LayerNorm before each block (pre-norm) instead of after it.
  bool norm_first = false;
  /// Whether the Linear and LayerNorm layers have biases.
  bool bias = true;
  /// Where the parameters live (the CPU, or the DefaultDevice, when absent).
  std::optional<Device> device{};
  /// The parameters' dtype (float32 when absent).
  std::optional<DType> dtype{};
};
/// TransformerEncoderLayer's keyword arguments.
using TransformerEncoderLayerOptions = TransformerLayerOptions;
/// TransformerDecoderLayer's keyword arguments.
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
  /// A layer of width `d_model` with `nhead` attention heads.
  TransformerEncoderLayer(std::int64_t d_model, std::int64_t nhead,
                          const TransformerEncoderLayerOptions& options = {});

  /// The self-attention.
  MultiheadAttention self_attn;
  /// The feed-forward block's first layer.
  Linear linear1;
  /// Between the feed-forward layers (the identity in inference).
  Dropout dropout;
  /// The feed-forward block's second layer.
  Linear linear2;
  /// The LayerNorm of the self-attention block.
  LayerNorm norm1;
  /// The LayerNorm of the feed-forward block.
  LayerNorm norm2;
  /// After the self-attention (the identity in inference).
  Dropout dropout1;
  /// After the feed-forward block (the identity in inference).
  Dropout dropout2;
  /// The feed-forward activation.
  TransformerActivation activation;
  /// Whether the LayerNorms come before their blocks.
  bool norm_first;
  FP_MODULE(self_attn, linear1, dropout, linear2, norm1, norm2, dropout1, dropout2)

  Tensor forward(TensorView src) const override;
  /// The layer on `src` with masks; PyTorch's fused fast path where it takes it.
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
  /// [seq, seq] or [batch * heads, seq, seq]: bool (true = do not attend) or additive float.
  std::optional<TensorView> mask{};
  /// Shape [batch, seq] (or [seq] unbatched): true (or -inf) marks padding.
  std::optional<TensorView> src_key_padding_mask{};
  /// Whether `mask` is causal; detected from the mask when absent, as in Python.
  std::optional<bool> is_causal{};
};

/// A stack of `num_layers` copies of an encoder layer (keys `layers.0...`,
/// `norm...`). https://pytorch.org/docs/stable/generated/torch.nn.TransformerEncoder.html
class TransformerEncoder : public Module {
 public:
  /// `num_layers` copies of `encoder_layer` (its weights too, as lazy copies).
  TransformerEncoder(const TransformerEncoderLayer& encoder_layer, std::int64_t num_layers,
                     const TransformerEncoderOptions& options = {});
  /// Python's `TransformerEncoder(layer, num_layers, norm)`, `norm` given
  /// positionally. Throws fp::Error when `options.norm` is set as well.
  TransformerEncoder(const TransformerEncoderLayer& encoder_layer, std::int64_t num_layers,
                     LayerNorm norm, TransformerEncoderOptions options = {});

  /// The layers.
  ModuleListOf<TransformerEncoderLayer> layers;
  /// The LayerNorm after the last layer, if any.
  std::optional<LayerNorm> norm;
  /// The number of layers.
  std::int64_t num_layers;
  /// Whether a key-padded batch may run as a nested tensor.
  bool enable_nested_tensor;
  /// Set at construction, as in Python: whether the layers allow nested tensors.
  bool use_nested_tensor;
  /// Whether the padding mask is checked before nested tensors are used.
  bool mask_check;
  FP_MODULE(layers, norm)

  Tensor forward(TensorView src) const override;
  /// The stack on `src` with masks.
  Tensor forward(TensorView src, const TransformerEncoderForwardOptions& options) const;
};

/// The keyword arguments of TransformerDecoderLayer.forward and TransformerDecoder.forward.
struct TransformerDecoderForwardOptions {
  /// [tgt, tgt] or [batch * heads, tgt, tgt]: the target's self-attention mask.
  std::optional<TensorView> tgt_mask{};
  /// [tgt, memory] or [batch * heads, tgt, memory]: the mask of attention over memory.
  std::optional<TensorView> memory_mask{};
  /// Shape [batch, tgt]: true (or -inf) marks padding in the target.
  std::optional<TensorView> tgt_key_padding_mask{};
  /// Shape [batch, memory]: true (or -inf) marks padding in memory.
  std::optional<TensorView> memory_key_padding_mask{};
  /// For TransformerDecoder detected from tgt_mask when absent; a layer takes false.
  std::optional<bool> tgt_is_causal{};
  /// A hint that memory_mask is causal.
  bool memory_is_causal = false;
};

/// Self-attention, attention over the encoder's output (memory), and a
/// feed-forward block. https://pytorch.org/docs/stable/generated/torch.nn.TransformerDecoderLayer.html
class TransformerDecoderLayer : public ModuleBase {
 public:
  /// A layer of width `d_model` with `nhead` attention heads.
  TransformerDecoderLayer(std::int64_t d_model, std::int64_t nhead,
                          const TransformerDecoderLayerOptions& options = {});

  /// The self-attention.
  MultiheadAttention self_attn;
  /// The attention over memory.
  MultiheadAttention multihead_attn;
  /// The feed-forward block's first layer.
  Linear linear1;
  /// Between the feed-forward layers (the identity in inference).
  Dropout dropout;
  /// The feed-forward block's second layer.
  Linear linear2;
  /// The LayerNorm of the self-attention block.
  LayerNorm norm1;
  /// The LayerNorm of the attention over memory.
  LayerNorm norm2;
  /// The LayerNorm of the feed-forward block.
  LayerNorm norm3;
  /// After the self-attention (the identity in inference).
  Dropout dropout1;
  /// After the attention over memory (the identity in inference).
  Dropout dropout2;
  /// After the feed-forward block (the identity in inference).
  Dropout dropout3;
  /// The feed-forward activation.
  TransformerActivation activation;
  /// Whether the LayerNorms come before their blocks.
  bool norm_first;
  FP_MODULE(self_attn, multihead_attn, linear1, dropout, linear2, norm1, norm2, norm3, dropout1,
            dropout2, dropout3)

  /// The layer on the target `tgt` and the encoder's output `memory`.
  Tensor forward(TensorView tgt, TensorView memory,
                 const TransformerDecoderForwardOptions& options = {}) const;
};

/// A stack of decoder layers. https://pytorch.org/docs/stable/generated/torch.nn.TransformerDecoder.html
class TransformerDecoder : public ModuleBase {
 public:
  /// `num_layers` copies of `decoder_layer` (its weights too, as lazy copies), then `norm`.
  TransformerDecoder(const TransformerDecoderLayer& decoder_layer, std::int64_t num_layers,
                     std::optional<LayerNorm> norm = std::nullopt);

  /// The layers.
  ModuleListOf<TransformerDecoderLayer> layers;
  /// The LayerNorm after the last layer, if any.
  std::optional<LayerNorm> norm;
  /// The number of layers.
  std::int64_t num_layers;
  FP_MODULE(layers, norm)

  /// The stack on the target `tgt` and the encoder's output `memory`.
  Tensor forward(TensorView tgt, TensorView memory,
                 const TransformerDecoderForwardOptions& options = {}) const;
};

/// The keyword arguments of torch.nn.Transformer, with PyTorch's defaults
/// (Python's custom_encoder and custom_decoder are not offered).
struct TransformerOptions {
  /// The width of the model.
  std::int64_t d_model = 512;
  /// The number of attention heads.
  std::int64_t nhead = 8;
  /// The number of encoder layers.
  std::int64_t num_encoder_layers = 6;
  /// The number of decoder layers.
  std::int64_t num_decoder_layers = 6;
  /// The feed-forward blocks' hidden size.
  std::int64_t dim_feedforward = 2048;
  /// Only used in training, which flash_powder does not do.
  double dropout = 0.1;
  /// "relu", "gelu", a ReLU or GELU module, or any function of a tensor.
  TransformerActivation activation = "relu";
  /// The LayerNorms' eps.
  double layer_norm_eps = 1e-5;
  /// Inputs and outputs are [batch, seq, feature] rather than [seq, batch, feature].
  bool batch_first = false;
  /// LayerNorm before each block (pre-norm) instead of after it.
  bool norm_first = false;
  /// Whether the Linear and LayerNorm layers have biases.
  bool bias = true;
  /// Where the parameters live (the CPU, or the DefaultDevice, when absent).
  std::optional<Device> device{};
  /// The parameters' dtype (float32 when absent).
  std::optional<DType> dtype{};
};

/// The keyword arguments of Transformer.forward.
struct TransformerForwardOptions {
  /// The encoder's self-attention mask.
  std::optional<TensorView> src_mask{};
  /// The decoder's self-attention mask.
  std::optional<TensorView> tgt_mask{};
  /// The mask of the decoder's attention over memory.
  std::optional<TensorView> memory_mask{};
  /// Shape [batch, src]: true (or -inf) marks padding in the source.
  std::optional<TensorView> src_key_padding_mask{};
  /// Shape [batch, tgt]: true (or -inf) marks padding in the target.
  std::optional<TensorView> tgt_key_padding_mask{};
  /// Shape [batch, src]: true (or -inf) marks padding in memory.
  std::optional<TensorView> memory_key_padding_mask{};
  /// Whether src_mask is causal; detected from the mask when absent.
  std::optional<bool> src_is_causal{};
  /// Whether tgt_mask is causal; detected from the mask when absent.
  std::optional<bool> tgt_is_causal{};
  /// A hint that memory_mask is causal.
  bool memory_is_causal = false;
};

/// An encoder and a decoder. https://pytorch.org/docs/stable/generated/torch.nn.Transformer.html
class Transformer : public ModuleBase {
 public:
  /// An encoder and a decoder as `options` say, with PyTorch's initial values.
  explicit Transformer(const TransformerOptions& options = {});

  /// The encoder stack (with its final LayerNorm).
  TransformerEncoder encoder;
  /// The decoder stack (with its final LayerNorm).
  TransformerDecoder decoder;
  /// The width of the model.
  std::int64_t d_model;
  /// The number of attention heads.
  std::int64_t nhead;
  /// Whether inputs are [batch, seq, feature].
  bool batch_first;
  FP_MODULE(encoder, decoder)

  /// The decoded target: the encoder on `src`, then the decoder on `tgt` and its output.
  Tensor forward(TensorView src, TensorView tgt,
                 const TransformerForwardOptions& options = {}) const;

  /// Shape [size, size]: -inf above the diagonal, 0 elsewhere (float32 unless `dtype`).
  static Tensor generate_square_subsequent_mask(std::int64_t size,
                                                std::optional<Device> device = std::nullopt,
                                                std::optional<DType> dtype = std::nullopt);
};

}  // namespace fp::nn
