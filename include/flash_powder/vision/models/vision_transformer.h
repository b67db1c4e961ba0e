// torchvision's Vision Transformer (ViT-B/16, B/32, L/16, L/32, H/14), with
// its state-dict keys ("class_token", "conv_proj.weight",
// "encoder.pos_embedding", "encoder.layers.encoder_layer_0.self_attention.in_proj_weight",
// "encoder.layers.encoder_layer_0.mlp.3.bias", "heads.head.weight", ...).
// https://pytorch.org/vision/stable/models/vision_transformer.html
//
//     auto net = fp::vision::models::vit_b_16();
//     net.load_state_dict(fp::safetensors::MappedFile::open("vit_b_16.safetensors"));
//     fp::Tensor logits = net(batch);  // [N, 3, 224, 224] -> [N, 1000]
//
// The network takes images of exactly `image_size` pixels square (its
// position embedding has one entry per patch); torchvision's SWAG weights
// want image_size 384 (B/16), 512 (L/16) or 518 (H/14). The attention runs
// fp::nn::MultiheadAttention, which takes PyTorch's fused fast path where
// Python does (an even number of heads), so the results are Python's bits.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "flash_powder/nn/layers/attention.h"
#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/layers/dropout.h"
#include "flash_powder/nn/layers/normalization.h"
#include "flash_powder/nn/module.h"

namespace fp::vision::models {

/// torchvision.models.vision_transformer.ConvStemConfig with its default
/// layers: one Conv2dNormActivation (convolution without bias, padding
/// `(kernel_size - 1) / 2`, BatchNorm2d, ReLU) of a convolutional stem.
struct ConvStemConfig {
  /// The convolution's output channels.
  std::int64_t out_channels = 0;
  /// Its square kernel's side.
  std::int64_t kernel_size = 3;
  /// Its stride.
  std::int64_t stride = 1;
};

/// The keyword arguments of torchvision's vit_* builders and VisionTransformer
/// (but `norm_layer`, always LayerNorm with eps 1e-6).
struct VisionTransformerOptions {
  /// The number of classes the head maps to (fp::Error when negative).
  std::int64_t num_classes = 1000;
  /// The side of the square images the network takes (a multiple of the
  /// patch size): the builders' `image_size`, 224 unless given.
  std::int64_t image_size = 224;
  /// The encoder's dropout probability; the identity in inference.
  double dropout = 0.0;
  /// The attention's dropout probability; the identity in inference.
  double attention_dropout = 0.0;
  /// A `heads.pre_logits` Linear to this size and a tanh before the head.
  std::optional<std::int64_t> representation_size = std::nullopt;
  /// A convolutional stem instead of the patch convolution (arXiv:2106.14881):
  /// `conv_proj` is then a Sequential of "conv_bn_relu_<i>" blocks and a 1x1
  /// "conv_last" to hidden_dim, as torchvision's. Its strides must multiply
  /// to the patch size for the tokens to fit (fp::Error when run otherwise).
  std::optional<std::vector<ConvStemConfig>> conv_stem_configs = std::nullopt;
};

/// torchvision.models.vision_transformer.EncoderBlock: pre-norm
/// self-attention and MLP, each added back to its input.
class EncoderBlock : public nn::Module {
 public:
  /// A block of width `hidden_dim` with `num_heads` heads and an MLP through `mlp_dim`.
  EncoderBlock(std::int64_t num_heads, std::int64_t hidden_dim, std::int64_t mlp_dim,
               double dropout, double attention_dropout);

  void visit(nn::Visitor& visitor) override;
  /// [N, sequence, hidden_dim] -> the same shape; fp::Error for another rank.
  Tensor forward(TensorView input) const override;

  /// The LayerNorm before the attention (eps 1e-6).
  nn::LayerNorm ln_1;
  /// Batch-first self-attention.
  nn::MultiheadAttention self_attention;
  /// After the attention (the identity in inference).
  nn::Dropout dropout;
  /// The LayerNorm before the MLP (eps 1e-6).
  nn::LayerNorm ln_2;
  /// torchvision's MLPBlock: Linear, GELU, Dropout, Linear, Dropout (keys "0", "3").
  nn::Sequential mlp;
};

/// torchvision.models.vision_transformer.Encoder: the position embedding
/// added, the blocks ("layers.encoder_layer_0", ...), a last LayerNorm.
class Encoder : public nn::Module {
 public:
  /// `num_layers` blocks over sequences of `seq_length` tokens.
  Encoder(std::int64_t seq_length, std::int64_t num_layers, std::int64_t num_heads,
          std::int64_t hidden_dim, std::int64_t mlp_dim, double dropout, double attention_dropout);

  void visit(nn::Visitor& visitor) override;
  /// [N, seq_length, hidden_dim] -> the same shape; fp::Error for another rank.
  Tensor forward(TensorView input) const override;

  /// [1, seq_length, hidden_dim], added to the tokens.
  Tensor pos_embedding;
  /// Before the blocks (the identity in inference).
  nn::Dropout dropout;
  /// The EncoderBlocks, named "encoder_layer_<i>".
  nn::Sequential layers;
  /// The last LayerNorm (eps 1e-6).
  nn::LayerNorm ln;
};

/// torchvision.models.VisionTransformer: patches projected by `conv_proj`, a
/// class token prepended, the encoder, and `heads` on the class token.
class VisionTransformer : public nn::Module {
 public:
  /// torchvision's `VisionTransformer(image_size, patch_size, num_layers,
  /// num_heads, hidden_dim, mlp_dim, ...)` with `options.image_size` as the
  /// image size. fp::Error when the patch size does not divide it, or
  /// num_heads does not divide hidden_dim.
  VisionTransformer(std::int64_t patch_size, std::int64_t num_layers, std::int64_t num_heads,
                    std::int64_t hidden_dim, std::int64_t mlp_dim,
                    const VisionTransformerOptions& options = {});

  void visit(nn::Visitor& visitor) override;
  /// [N, 3, image_size, image_size] float images -> [N, num_classes] logits;
  /// fp::Error for another image size, like torchvision.
  Tensor forward(TensorView input) const override;

  /// [1, 1, hidden_dim]: the token whose encoding the head classifies.
  Tensor class_token;
  /// The patch embedding: an nn::Conv2d of kernel and stride `patch_size`,
  /// or the nn::Sequential of `conv_stem_configs`.
  std::unique_ptr<nn::Module> conv_proj;
  /// The transformer encoder.
  Encoder encoder;
  /// "head", after "pre_logits" and "act" (tanh) with a representation_size.
  nn::Sequential heads;
  /// The side of the images the network takes.
  std::int64_t image_size;
  /// The side of a patch.
  std::int64_t patch_size;
  /// The width of the tokens.
  std::int64_t hidden_dim;
};

/// https://pytorch.org/vision/stable/models/generated/torchvision.models.vit_b_16.html
VisionTransformer vit_b_16(const VisionTransformerOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.vit_b_32.html
VisionTransformer vit_b_32(const VisionTransformerOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.vit_l_16.html
VisionTransformer vit_l_16(const VisionTransformerOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.vit_l_32.html
VisionTransformer vit_l_32(const VisionTransformerOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.vit_h_14.html
VisionTransformer vit_h_14(const VisionTransformerOptions& options = {});

}  // namespace fp::vision::models
