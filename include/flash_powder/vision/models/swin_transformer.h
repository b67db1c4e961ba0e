// torchvision's Swin Transformer, V1 (swin_t, swin_s, swin_b) and V2
// (swin_v2_t, swin_v2_s, swin_v2_b), with its state-dict keys
// ("features.0.0.weight", "features.1.0.attn.relative_position_bias_table",
// "features.1.1.attn.relative_position_index", "features.2.reduction.weight",
// "features.3.0.attn.cpb_mlp.0.weight", "head.bias", ...).
// https://pytorch.org/vision/stable/models/swin_transformer.html
//
//     auto net = fp::vision::models::swin_v2_t();
//     net.load_state_dict(fp::safetensors::MappedFile::open("swin_v2_t.safetensors"));
//     fp::Tensor logits = net(batch);  // [N, 3, H, W] -> [N, 1000], any H and W
//
// Windows attention with relative position bias (V2: cosine attention with
// a learnt logit scale and a continuous position bias from a small MLP), the
// windows shifted every second block (torch.roll, with torchvision's
// attention mask), feature maps padded to window multiples, patch merging
// between the stages. relative_position_index (and V2's relative_coords_table)
// are buffers in the state dict, as in torchvision. Stochastic depth is the
// identity in inference and has no keys.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/layers/linear.h"
#include "flash_powder/nn/layers/normalization.h"
#include "flash_powder/nn/layers/pooling.h"
#include "flash_powder/nn/module.h"

namespace fp::vision::models {

/// Swin Transformer V1 or V2: which attention, block and patch merging.
enum class SwinVersion { V1, V2 };

/// The keyword arguments of torchvision's swin_* builders and SwinTransformer
/// (but `norm_layer`, `block` and `downsample_layer`, which SwinVersion chooses).
struct SwinTransformerOptions {
  /// The number of classes the head maps to (fp::Error when negative).
  std::int64_t num_classes = 1000;
  /// The MLPs' hidden width over the blocks' width.
  double mlp_ratio = 4.0;
  /// The dropout probability; the identity in inference.
  double dropout = 0.0;
  /// The attention's dropout probability; the identity in inference.
  double attention_dropout = 0.0;
  /// The stochastic depth probability (the builder's default when unset);
  /// the identity in inference, but fp::Error outside [0, 1] as in torchvision.
  std::optional<double> stochastic_depth_prob = std::nullopt;
};

/// torchvision's ShiftedWindowAttention (V1) and ShiftedWindowAttentionV2:
/// multi-head self-attention within windows of `window_size`, shifted by
/// `shift_size` (torchvision's `shifted_window_attention`).
class ShiftedWindowAttention : public nn::Module {
 public:
  /// Attention over `dim` channels with `num_heads` heads. fp::Error unless
  /// num_heads divides dim and the sizes are positive (V2: windows of at least 2).
  ShiftedWindowAttention(std::int64_t dim, std::array<std::int64_t, 2> window_size,
                         std::array<std::int64_t, 2> shift_size, std::int64_t num_heads,
                         SwinVersion version = SwinVersion::V1);

  void visit(nn::Visitor& visitor) override;
  /// [B, H, W, C] -> the same shape.
  Tensor forward(TensorView input) const override;
  /// The bias added to the attention logits, [1, heads, N, N] for N tokens per window.
  Tensor relative_position_bias() const;

  /// The window's height and width.
  std::array<std::int64_t, 2> window_size;
  /// How far the windows are shifted (0, 0 for none).
  std::array<std::int64_t, 2> shift_size;
  /// The number of heads.
  std::int64_t num_heads;
  /// V1 or V2.
  SwinVersion version;
  /// The query, key and value projection.
  nn::Linear qkv;
  /// The output projection.
  nn::Linear proj;
  /// V1: [(2 Wh - 1) (2 Ww - 1), heads], the learnt bias per relative position.
  Tensor relative_position_bias_table;
  /// V2: [heads, 1, 1], the log of the cosine attention's scale.
  Tensor logit_scale;
  /// V2: [1, 2 Wh - 1, 2 Ww - 1, 2], the log-spaced relative coordinates (a buffer).
  Tensor relative_coords_table;
  /// [N * N] int64: each token pair's row of the bias table (a buffer).
  Tensor relative_position_index;
  /// V2: Linear(2, 512), ReLU, Linear(512, heads) from coordinates to biases.
  nn::Sequential cpb_mlp;

 private:
  /// Attention within each of [B * windows, N, C] windows, with the shifted
  /// windows' [windows, N, N] mask if any; projected by `proj`.
  Tensor attention(TensorView windows, const std::optional<Tensor>& mask) const;
};

/// torchvision's SwinTransformerBlock (V1: LayerNorm before the attention
/// and the MLP) and SwinTransformerBlockV2 (after them).
class SwinTransformerBlock : public nn::Module {
 public:
  /// A block of width `dim`.
  SwinTransformerBlock(std::int64_t dim, std::int64_t num_heads,
                       std::array<std::int64_t, 2> window_size,
                       std::array<std::int64_t, 2> shift_size, SwinVersion version,
                       const SwinTransformerOptions& options = {});

  void visit(nn::Visitor& visitor) override;
  /// [B, H, W, C] -> the same shape.
  Tensor forward(TensorView input) const override;

  /// The attention's LayerNorm.
  nn::LayerNorm norm1;
  /// The window attention.
  ShiftedWindowAttention attn;
  /// The MLP's LayerNorm.
  nn::LayerNorm norm2;
  /// Linear, GELU, Dropout, Linear, Dropout (keys "0", "3").
  nn::Sequential mlp;
  /// V1 or V2.
  SwinVersion version;
};

/// torchvision's PatchMerging (V1: LayerNorm, then the reduction) and
/// PatchMergingV2 (the reduction, then LayerNorm): each 2x2 patch's channels
/// concatenated (the map padded to even sizes), then reduced to 2 dim.
class PatchMerging : public nn::Module {
 public:
  /// Merges a map of `dim` channels.
  explicit PatchMerging(std::int64_t dim, SwinVersion version = SwinVersion::V1);

  void visit(nn::Visitor& visitor) override;
  /// [..., H, W, C] -> [..., ceil(H/2), ceil(W/2), 2C].
  Tensor forward(TensorView input) const override;

  /// Linear(4 dim, 2 dim) without bias.
  nn::Linear reduction;
  /// Over 4 dim channels (V1) or 2 dim (V2).
  nn::LayerNorm norm;
  /// V1 or V2.
  SwinVersion version;
};

/// torchvision.models.SwinTransformer: `features` (patch embedding, stages of
/// blocks with patch merging between), `norm`, pooling and `head`.
class SwinTransformer : public nn::Module {
 public:
  /// torchvision's `SwinTransformer(patch_size, embed_dim, depths, num_heads,
  /// window_size, ...)`, with V2's block and patch merging for SwinVersion::V2.
  SwinTransformer(std::array<std::int64_t, 2> patch_size, std::int64_t embed_dim,
                  const std::vector<std::int64_t>& depths,
                  const std::vector<std::int64_t>& num_heads,
                  std::array<std::int64_t, 2> window_size, SwinVersion version = SwinVersion::V1,
                  const SwinTransformerOptions& options = {});

  void visit(nn::Visitor& visitor) override;
  /// [N, 3, H, W] float images -> [N, num_classes] logits.
  Tensor forward(TensorView input) const override;

  /// Conv2d, Permute and LayerNorm; then each stage's blocks and a PatchMerging.
  nn::Sequential features;
  /// The LayerNorm after the last stage.
  nn::LayerNorm norm;
  /// Pools each channel to one value.
  nn::AdaptiveAvgPool2d avgpool{{1, 1}};
  /// The classifier.
  nn::Linear head;
};

/// https://pytorch.org/vision/stable/models/generated/torchvision.models.swin_t.html
SwinTransformer swin_t(const SwinTransformerOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.swin_s.html
SwinTransformer swin_s(const SwinTransformerOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.swin_b.html
SwinTransformer swin_b(const SwinTransformerOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.swin_v2_t.html
SwinTransformer swin_v2_t(const SwinTransformerOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.swin_v2_s.html
SwinTransformer swin_v2_s(const SwinTransformerOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.swin_v2_b.html
SwinTransformer swin_v2_b(const SwinTransformerOptions& options = {});

}  // namespace fp::vision::models
