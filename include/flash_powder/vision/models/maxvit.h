// torchvision's MaxViT (maxvit_t), with its state-dict keys
// ("stem.0.0.weight", "blocks.0.layers.0.layers.MBconv.proj.1.weight",
// "blocks.0.layers.0.layers.window_attention.attn_layer.1.relative_position_bias_table",
// "blocks.3.layers.1.layers.grid_attention.mlp_layer.3.bias",
// "classifier.5.weight", ...).
// https://pytorch.org/vision/stable/models/maxvit.html
//
//     auto net = fp::vision::models::maxvit_t();
//     net.load_state_dict(fp::safetensors::MappedFile::open("maxvit_t.safetensors"));
//     fp::Tensor logits = net(batch);  // [N, 3, 224, 224] -> [N, 1000]
//
// Each layer is an MBConv, then attention within windows of
// partition_size x partition_size ("window_attention") and across a grid
// of them ("grid_attention"), with relative position biases. The network is
// made for one input size (`input_size`, 224x224 unless given), whose
// feature maps every stage partitions, as torchvision's is.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/layers/linear.h"
#include "flash_powder/nn/module.h"

namespace fp::vision::models {

/// The keyword arguments of torchvision's maxvit_t and MaxVit (but
/// `norm_layer` and `activation_layer`: BatchNorm2d(eps=1e-3) and GELU).
struct MaxVitOptions {
  /// The number of classes the classifier maps to (fp::Error when negative).
  std::int64_t num_classes = 1000;
  /// The height and width of the images the network takes.
  std::array<std::int64_t, 2> input_size = {224, 224};
  /// The stochastic depth probability (the builder's default when unset);
  /// the identity in inference, but fp::Error outside [0, 1] as in torchvision.
  std::optional<double> stochastic_depth_prob = std::nullopt;
  /// The squeeze-excitation's width over the MBConv's output channels.
  double squeeze_ratio = 0.25;
  /// The MBConv's hidden width over its output channels.
  double expansion_ratio = 4;
  /// The attention layers' MLP width over their channels.
  std::int64_t mlp_ratio = 4;
  /// The MLPs' dropout probability; the identity in inference.
  double mlp_dropout = 0.0;
  /// The attention's dropout probability; the identity in inference.
  double attention_dropout = 0.0;
};

/// torchvision.models.maxvit.MBConv (named apart from EfficientNet's MBConv,
/// which shares torchvision.models' namespace here): pre-norm, expanding 1x1 and depthwise
/// 3x3 convolutions, squeeze-excitation and a projecting 1x1 convolution,
/// added to the input (pooled and projected when the shape changes).
class MaxVitMBConv : public nn::Module {
 public:
  /// A block from `in_channels` to `out_channels` with a depthwise stride of 1 or 2.
  MaxVitMBConv(std::int64_t in_channels, std::int64_t out_channels, double expansion_ratio,
               double squeeze_ratio, std::int64_t stride);

  void visit(nn::Visitor& visitor) override;
  /// [B, C, H, W] -> [B, out_channels, H / stride, W / stride].
  Tensor forward(TensorView input) const override;

  /// The shortcut: AvgPool2d (stride 2) and Conv2d, or Conv2d, or none (empty).
  nn::Sequential proj;
  /// "pre_norm", "conv_a", "conv_b", "squeeze_excitation", "conv_c".
  nn::Sequential layers;
};

/// torchvision.models.maxvit.RelativePositionalMultiHeadAttention: heads of
/// `head_dim` over [B, G, P, D] partitions, with a learnt bias per relative
/// position of two of the P tokens (a square of side sqrt(max_seq_len)).
class RelativePositionalMultiHeadAttention : public nn::Module {
 public:
  /// fp::Error unless head_dim divides feat_dim.
  RelativePositionalMultiHeadAttention(std::int64_t feat_dim, std::int64_t head_dim,
                                       std::int64_t max_seq_len);

  void visit(nn::Visitor& visitor) override;
  /// [B, G, P, D] -> the same shape.
  Tensor forward(TensorView input) const override;

  /// The number of heads.
  std::int64_t n_heads;
  /// The width of a head.
  std::int64_t head_dim;
  /// The number of tokens of a partition.
  std::int64_t max_seq_len;
  /// Python's `feat_dim ** -0.5`, the keys' scale.
  double scale_factor;
  /// [(2 size - 1)^2, heads]: the bias per relative position.
  Tensor relative_position_bias_table;
  /// [P, P] int64: each token pair's row of the table (a buffer).
  Tensor relative_position_index;
  /// The query, key and value projection.
  nn::Linear to_qkv;
  /// The output projection.
  nn::Linear merge;
};

/// torchvision.models.maxvit.PartitionAttentionLayer: the map cut into
/// windows ("window") or a grid ("grid"), attention and an MLP over each,
/// each added back, and the map put together again.
class PartitionAttentionLayer : public nn::Module {
 public:
  /// fp::Error unless `partition_type` is "window" or "grid".
  PartitionAttentionLayer(std::int64_t in_channels, std::int64_t head_dim,
                          std::int64_t partition_size, const std::string& partition_type,
                          std::array<std::int64_t, 2> grid_size, std::int64_t mlp_ratio,
                          double attention_dropout, double mlp_dropout);

  void visit(nn::Visitor& visitor) override;
  /// [B, C, H, W] -> the same shape (H, W: grid_size).
  Tensor forward(TensorView input) const override;

  /// LayerNorm, RelativePositionalMultiHeadAttention, Dropout.
  nn::Sequential attn_layer;
  /// LayerNorm, Linear, GELU, Linear, Dropout.
  nn::Sequential mlp_layer;
  /// "window" or "grid".
  std::string partition_type;
  /// The side of a partition as WindowPartition cuts it.
  std::int64_t p;
  /// The size of the feature map.
  std::array<std::int64_t, 2> grid_size;
};

/// torchvision.models.maxvit.MaxVitLayer: MBConv, window attention, grid
/// attention ("layers.MBconv", "layers.window_attention", "layers.grid_attention").
class MaxVitLayer : public nn::Module {
 public:
  /// A layer from `in_channels` to `out_channels` over maps of `grid_size` (after the stride).
  MaxVitLayer(std::int64_t in_channels, std::int64_t out_channels, std::int64_t stride,
              std::int64_t head_dim, std::int64_t partition_size,
              std::array<std::int64_t, 2> grid_size, const MaxVitOptions& options);

  void visit(nn::Visitor& visitor) override;
  /// [B, C, H, W] -> [B, out_channels, grid_size...].
  Tensor forward(TensorView input) const override;

  /// The three parts, by torchvision's names.
  nn::Sequential layers;
};

/// torchvision.models.maxvit.MaxVitBlock: `n_layers` MaxVitLayers, the first
/// of stride 2.
class MaxVitBlock : public nn::Module {
 public:
  /// A block over maps of `input_grid_size`.
  MaxVitBlock(std::int64_t in_channels, std::int64_t out_channels, std::int64_t head_dim,
              std::int64_t partition_size, std::array<std::int64_t, 2> input_grid_size,
              std::int64_t n_layers, const MaxVitOptions& options);

  void visit(nn::Visitor& visitor) override;
  /// [B, C, H, W] -> [B, out_channels, grid_size...].
  Tensor forward(TensorView input) const override;

  /// The size of the block's output maps.
  std::array<std::int64_t, 2> grid_size;
  /// The MaxVitLayers.
  nn::Sequential layers;
};

/// torchvision.models.MaxVit: `stem`, `blocks`, `classifier`.
class MaxVit : public nn::Module {
 public:
  /// torchvision's `MaxVit(input_size, stem_channels, partition_size,
  /// block_channels, block_layers, head_dim, ...)`, with `options.input_size`.
  /// fp::Error when a block's feature map is not a multiple of partition_size.
  MaxVit(std::int64_t stem_channels, std::int64_t partition_size,
         const std::vector<std::int64_t>& block_channels,
         const std::vector<std::int64_t>& block_layers, std::int64_t head_dim,
         const MaxVitOptions& options = {});

  void visit(nn::Visitor& visitor) override;
  /// [N, 3, H, W] float images (H, W: input_size) -> [N, num_classes] logits.
  Tensor forward(TensorView input) const override;

  /// Two 3x3 convolutions, the first of stride 2.
  nn::Sequential stem;
  /// The MaxVitBlocks.
  nn::Sequential blocks;
  /// AdaptiveAvgPool2d, Flatten, LayerNorm, Linear, Tanh, Linear.
  nn::Sequential classifier;
};

/// https://pytorch.org/vision/stable/models/generated/torchvision.models.maxvit_t.html
MaxVit maxvit_t(const MaxVitOptions& options = {});

}  // namespace fp::vision::models
