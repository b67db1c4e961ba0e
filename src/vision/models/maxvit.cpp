// torchvision/models/maxvit.py, layer for layer (the partitions and the
// attention in its order: the bits depend on it).
#include "flash_powder/vision/models/maxvit.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "flash_powder/aten/aten.h"
#include "flash_powder/base/error.h"
#include "flash_powder/core/functions.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/functional/activation.h"
#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/layers/dropout.h"
#include "flash_powder/nn/layers/flatten.h"
#include "flash_powder/nn/layers/normalization.h"
#include "flash_powder/nn/layers/pooling.h"
#include "vision/models/transformer_parts.h"

namespace fp::vision::models {
namespace {

using Size = std::array<std::int64_t, 2>;

/// torchvision's `partial(nn.BatchNorm2d, eps=1e-3, momentum=0.01)`.
nn::BatchNorm2d batch_norm(std::int64_t channels) {
  return nn::BatchNorm2d(channels, {.eps = 1e-3, .momentum = 0.01});
}

/// Conv2dNormActivation with BatchNorm and GELU and no convolution bias.
nn::Sequential conv_norm_gelu(std::int64_t in, std::int64_t out, std::int64_t kernel,
                              std::int64_t stride, std::int64_t groups = 1) {
  return nn::Sequential(
      nn::Conv2d(in, out, kernel,
                 {.stride = stride, .padding = (kernel - 1) / 2, .groups = groups, .bias = false}),
      batch_norm(out), nn::GELU());
}

/// torchvision.ops.SqueezeExcitation(activation=nn.SiLU) (scale by sigmoid).
class SqueezeExcitationSiLU : public nn::Module {
 public:
  SqueezeExcitationSiLU(std::int64_t input_channels, std::int64_t squeeze_channels)
      : fc1(input_channels, squeeze_channels, 1), fc2(squeeze_channels, input_channels, 1) {}

  void visit(nn::Visitor& visitor) override {
    visitor.child("avgpool", avgpool);
    visitor.child("fc1", fc1);
    visitor.child("fc2", fc2);
  }
  Tensor forward(TensorView input) const override {
    return aten::sigmoid(fc2(functional::silu(fc1(avgpool(input))))) * input;
  }
  std::string type_name() const override { return "SqueezeExcitation"; }

  nn::AdaptiveAvgPool2d avgpool{{1, 1}};
  nn::Conv2d fc1;
  nn::Conv2d fc2;
};

/// torchvision's _get_conv_output_shape for a 3x3 convolution of stride 2, padding 1.
Size halved(Size size) {
  return {(size[0] - 3 + 2) / 2 + 1, (size[1] - 3 + 2) / 2 + 1};
}

}  // namespace

MaxVitMBConv::MaxVitMBConv(std::int64_t in_channels, std::int64_t out_channels,
                           double expansion_ratio, double squeeze_ratio, std::int64_t stride) {
  if (stride != 1 || in_channels != out_channels) {
    if (stride == 2) proj.push(nn::AvgPool2d(3, {.stride = stride, .padding = 1}));
    proj.push(nn::Conv2d(in_channels, out_channels, 1));
  }
  // Python's int(): toward zero.
  const auto mid = static_cast<std::int64_t>(static_cast<double>(out_channels) * expansion_ratio);
  const auto squeeze = static_cast<std::int64_t>(static_cast<double>(out_channels) * squeeze_ratio);
  layers.push("pre_norm", batch_norm(in_channels))
      .push("conv_a", conv_norm_gelu(in_channels, mid, 1, 1))
      .push("conv_b", conv_norm_gelu(mid, mid, 3, stride, mid))
      .push("squeeze_excitation", SqueezeExcitationSiLU(mid, squeeze))
      .push("conv_c", nn::Conv2d(mid, out_channels, 1));
}

void MaxVitMBConv::visit(nn::Visitor& visitor) {
  if (proj.size() > 0) visitor.child("proj", proj);
  visitor.child("layers", layers);
}

Tensor MaxVitMBConv::forward(TensorView input) const {
  const Tensor x = layers(input);
  if (proj.size() == 0) return input + x;
  return proj(input) + x;
}

namespace {

std::int64_t heads_of(std::int64_t feat_dim, std::int64_t head_dim) {
  if (head_dim <= 0 || feat_dim % head_dim != 0)
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::RelativePositionalMultiHeadAttention: feat_dim: " +
                    std::to_string(feat_dim) +
                    " must be divisible by head_dim: " + std::to_string(head_dim));
  return feat_dim / head_dim;
}

}  // namespace

RelativePositionalMultiHeadAttention::RelativePositionalMultiHeadAttention(std::int64_t feat_dim,
                                                                           std::int64_t head_dim,
                                                                           std::int64_t max_seq_len)
    : n_heads(heads_of(feat_dim, head_dim)),
      head_dim(head_dim),
      max_seq_len(max_seq_len),
      scale_factor(std::pow(static_cast<double>(feat_dim), -0.5)),
      to_qkv(feat_dim, n_heads * head_dim * 3),
      merge(head_dim * n_heads, feat_dim) {
  // Python's int(math.sqrt(max_seq_len)).
  const auto size = static_cast<std::int64_t>(std::sqrt(static_cast<double>(max_seq_len)));
  relative_position_bias_table = detail::zero_parameter({(2 * size - 1) * (2 * size - 1), n_heads});
  relative_position_index = detail::on_default_device(
      detail::relative_position_index({size, size}).reshape({size * size, size * size}));
}

void RelativePositionalMultiHeadAttention::visit(nn::Visitor& visitor) {
  visitor.parameter("relative_position_bias_table", relative_position_bias_table);
  visitor.buffer("relative_position_index", relative_position_index);
  visitor.child("to_qkv", to_qkv);
  visitor.child("merge", merge);
}

Tensor RelativePositionalMultiHeadAttention::forward(TensorView input) const {
  const std::int64_t b = input.size(0), g = input.size(1), p = input.size(2), d = input.size(3);
  const Tensor qkv = to_qkv(input);
  const std::vector<TensorView> parts = aten::chunk(qkv, 3, -1);
  const auto heads = [&](TensorView part) {
    return part.reshape({b, g, p, n_heads, head_dim}).permute({0, 1, 3, 2, 4}).to_owned();
  };
  const Tensor q = heads(parts[0]), k = heads(parts[1]) * scale_factor, v = heads(parts[2]);
  // torchvision's einsums "B G H I D, B G H J D -> B G H I J" and
  // "B G H I J, B G H J D -> B G H I D" are these batched products: both copy
  // the operands into [B*G*H, ., .] and run one bmm, so the bits agree (an
  // einsum's equation would cross torch_call_dispatcher, which leaks strings
  // on torch 2.10-2.13).
  const Tensor dot_prod = matmul(q, k.transpose(-2, -1));
  const Tensor bias =
      aten::index_Tensor(relative_position_bias_table, {relative_position_index.view({-1})})
          .view({max_seq_len, max_seq_len, -1})
          .permute({2, 0, 1})
          .contiguous()
          .unsqueeze(0)
          .to_owned();
  const Tensor attention = functional::softmax(dot_prod + bias, -1);
  const Tensor out = matmul(attention, v);
  return merge(out.permute({0, 1, 3, 2, 4}).reshape({b, g, p, d}));
}

PartitionAttentionLayer::PartitionAttentionLayer(std::int64_t in_channels, std::int64_t head_dim,
                                                 std::int64_t partition_size,
                                                 const std::string& partition_type, Size grid_size,
                                                 std::int64_t mlp_ratio, double attention_dropout,
                                                 double mlp_dropout)
    : attn_layer(nn::LayerNorm(in_channels),
                 RelativePositionalMultiHeadAttention(in_channels, head_dim,
                                                      partition_size * partition_size),
                 nn::Dropout(attention_dropout)),
      mlp_layer(nn::LayerNorm(in_channels), nn::Linear(in_channels, in_channels * mlp_ratio),
                nn::GELU(), nn::Linear(in_channels * mlp_ratio, in_channels),
                nn::Dropout(mlp_dropout)),
      partition_type(partition_type),
      p(partition_type == "window" ? partition_size : grid_size[0] / partition_size),
      grid_size(grid_size) {
  if (partition_type != "window" && partition_type != "grid")
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::PartitionAttentionLayer: partition_type must be either "
                "'grid' or 'window'");
  if (p <= 0 || grid_size[0] % p != 0 || grid_size[1] % p != 0)
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::PartitionAttentionLayer: Grid size must be divisible by "
                "partition size. Got grid size of (" +
                    std::to_string(grid_size[0]) + ", " + std::to_string(grid_size[1]) +
                    ") and partition size of " + std::to_string(p));
}

void PartitionAttentionLayer::visit(nn::Visitor& visitor) {
  visitor.child("attn_layer", attn_layer);
  visitor.child("mlp_layer", mlp_layer);
}

Tensor PartitionAttentionLayer::forward(TensorView input) const {
  const std::int64_t gh = grid_size[0] / p, gw = grid_size[1] / p;
  const std::int64_t b = input.size(0), c = input.size(1), h = input.size(2), w = input.size(3);
  // WindowPartition: [B, C, H, W] -> [B, (H/P)(W/P), P*P, C]; the grid swaps the middle axes.
  const Tensor windows = input.reshape({b, c, h / p, p, w / p, p})
                             .permute({0, 2, 4, 3, 5, 1})
                             .reshape({b, (h / p) * (w / p), p * p, c});
  const bool grid = partition_type == "grid";
  const TensorView partitions = grid ? windows.transpose(-2, -3) : TensorView(windows);
  const Tensor attended = partitions + attn_layer(partitions);
  Tensor x = attended + mlp_layer(attended);
  if (grid) x = x.transpose(-2, -3).to_owned();
  // WindowDepartition: [B, HP * WP, P*P, C] -> [B, C, HP*P, WP*P].
  return x.reshape({b, gh, gw, p, p, c})
      .permute({0, 5, 1, 3, 2, 4})
      .reshape({b, c, gh * p, gw * p});
}

MaxVitLayer::MaxVitLayer(std::int64_t in_channels, std::int64_t out_channels, std::int64_t stride,
                         std::int64_t head_dim, std::int64_t partition_size, Size grid_size,
                         const MaxVitOptions& options) {
  layers.push("MBconv", MaxVitMBConv(in_channels, out_channels, options.expansion_ratio,
                                     options.squeeze_ratio, stride));
  layers.push(
      "window_attention",
      PartitionAttentionLayer(out_channels, head_dim, partition_size, "window", grid_size,
                              options.mlp_ratio, options.attention_dropout, options.mlp_dropout));
  layers.push(
      "grid_attention",
      PartitionAttentionLayer(out_channels, head_dim, partition_size, "grid", grid_size,
                              options.mlp_ratio, options.attention_dropout, options.mlp_dropout));
}

void MaxVitLayer::visit(nn::Visitor& visitor) {
  visitor.child("layers", layers);
}

Tensor MaxVitLayer::forward(TensorView input) const {
  return layers(input);
}

MaxVitBlock::MaxVitBlock(std::int64_t in_channels, std::int64_t out_channels, std::int64_t head_dim,
                         std::int64_t partition_size, Size input_grid_size, std::int64_t n_layers,
                         const MaxVitOptions& options)
    : grid_size(halved(input_grid_size)) {
  for (std::int64_t index = 0; index < n_layers; ++index)
    layers.push(MaxVitLayer(index == 0 ? in_channels : out_channels, out_channels,
                            index == 0 ? 2 : 1, head_dim, partition_size, grid_size, options));
}

void MaxVitBlock::visit(nn::Visitor& visitor) {
  visitor.child("layers", layers);
}

Tensor MaxVitBlock::forward(TensorView input) const {
  return layers(input);
}

namespace {

/// torchvision's check of _make_block_input_shapes: every block's map a
/// multiple of the partition size. Returns the stem's output size.
Size checked_stem_size(Size input_size, std::int64_t partition_size, std::size_t blocks) {
  std::vector<Size> sizes;
  Size size = halved(input_size);
  for (std::size_t block = 0; block < blocks; ++block)
    sizes.push_back(size = halved(size));
  for (std::size_t block = 0; block < blocks; ++block) {
    if (partition_size > 0 && sizes[block][0] % partition_size == 0 &&
        sizes[block][1] % partition_size == 0)
      continue;
    std::string all;
    for (const Size& each : sizes)
      all += (all.empty() ? "(" : ", (") + std::to_string(each[0]) + ", " +
             std::to_string(each[1]) + ")";
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::MaxVit: Input size (" + std::to_string(sizes[block][0]) +
                    ", " + std::to_string(sizes[block][1]) + ") of block " + std::to_string(block) +
                    " is not divisible by partition size " + std::to_string(partition_size) +
                    ". Consider changing the partition size or the input size. Current "
                    "configuration yields the following block input sizes: [" +
                    all + "].");
  }
  return halved(input_size);
}

}  // namespace

MaxVit::MaxVit(std::int64_t stem_channels, std::int64_t partition_size,
               const std::vector<std::int64_t>& block_channels,
               const std::vector<std::int64_t>& block_layers, std::int64_t head_dim,
               const MaxVitOptions& options)
    : stem(conv_norm_gelu(3, stem_channels, 3, 2),
           nn::Sequential(nn::Conv2d(stem_channels, stem_channels, 3, {.padding = 1}))) {
  if (block_channels.empty() || block_channels.size() != block_layers.size())
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::MaxVit: block_channels and block_layers need one entry per "
                "block (got " +
                    std::to_string(block_channels.size()) + " and " +
                    std::to_string(block_layers.size()) + ")");
  detail::check_stochastic_depth(options.stochastic_depth_prob, "MaxVit");
  Size grid = checked_stem_size(options.input_size, partition_size, block_channels.size());
  std::int64_t in_channels = stem_channels;
  for (std::size_t index = 0; index < block_channels.size(); ++index) {
    MaxVitBlock block(in_channels, block_channels[index], head_dim, partition_size, grid,
                      block_layers[index], options);
    grid = block.grid_size;
    in_channels = block_channels[index];
    blocks.push(std::move(block));
  }
  const std::int64_t last = block_channels.back();
  classifier.push(nn::AdaptiveAvgPool2d({1, 1}))
      .push(nn::Flatten())
      .push(nn::LayerNorm(last))
      .push(nn::Linear(last, last))
      .push(nn::Tanh())
      .push(nn::Linear(last, options.num_classes, {.bias = false}));
}

void MaxVit::visit(nn::Visitor& visitor) {
  visitor.child("stem", stem);
  visitor.child("blocks", blocks);
  visitor.child("classifier", classifier);
}

Tensor MaxVit::forward(TensorView input) const {
  return classifier(blocks(stem(input)));
}

MaxVit maxvit_t(const MaxVitOptions& options) {
  return MaxVit(64, 7, {64, 128, 256, 512}, {2, 2, 5, 2}, 32, options);
}

}  // namespace fp::vision::models
