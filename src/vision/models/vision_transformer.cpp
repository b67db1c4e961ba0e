// torchvision/models/vision_transformer.py, layer for layer.
#include "flash_powder/vision/models/vision_transformer.h"

#include <string>

#include "base/text.h"
#include "flash_powder/aten/aten.h"
#include "flash_powder/base/error.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/nn/layers/linear.h"
#include "vision/models/transformer_parts.h"
#include "vision/models/utils.h"

namespace fp::vision::models {
namespace {

/// torchvision's `partial(nn.LayerNorm, eps=1e-6)`.
nn::LayerNorm layer_norm(std::int64_t dim) {
  return nn::LayerNorm(dim, {.eps = 1e-6});
}

/// torch._assert(input.dim() == 3, ...) of EncoderBlock and Encoder.
void check_tokens(TensorView input, const char* where) {
  if (input.dim() != 3)
    throw Error(ErrorCode::BadArgument, std::string("fp::vision::models::") + where +
                                            ": Expected (batch_size, seq_length, hidden_dim) got " +
                                            fp::detail::torch_size(input.sizes()));
}

}  // namespace

EncoderBlock::EncoderBlock(std::int64_t num_heads, std::int64_t hidden_dim, std::int64_t mlp_dim,
                           double dropout, double attention_dropout)
    : ln_1(layer_norm(hidden_dim)),
      self_attention(hidden_dim, num_heads, {.dropout = attention_dropout, .batch_first = true}),
      dropout(dropout),
      ln_2(layer_norm(hidden_dim)),
      mlp(detail::gelu_mlp(hidden_dim, mlp_dim, dropout)) {}

void EncoderBlock::visit(nn::Visitor& visitor) {
  visitor.child("ln_1", ln_1);
  visitor.child("self_attention", self_attention);
  visitor.child("dropout", dropout);
  visitor.child("ln_2", ln_2);
  visitor.child("mlp", mlp);
}

Tensor EncoderBlock::forward(TensorView input) const {
  check_tokens(input, "EncoderBlock");
  const Tensor x = ln_1(input);
  const Tensor attended =
      std::get<0>(self_attention.forward(x, x, x, {.need_weights = false})) + input;
  return attended + mlp(ln_2(attended));
}

Encoder::Encoder(std::int64_t seq_length, std::int64_t num_layers, std::int64_t num_heads,
                 std::int64_t hidden_dim, std::int64_t mlp_dim, double dropout,
                 double attention_dropout)
    : pos_embedding(detail::zero_parameter({1, seq_length, hidden_dim})),
      dropout(dropout),
      ln(layer_norm(hidden_dim)) {
  for (std::int64_t i = 0; i < num_layers; ++i)
    layers.push("encoder_layer_" + std::to_string(i),
                EncoderBlock(num_heads, hidden_dim, mlp_dim, dropout, attention_dropout));
}

void Encoder::visit(nn::Visitor& visitor) {
  visitor.parameter("pos_embedding", pos_embedding);
  visitor.child("dropout", dropout);
  visitor.child("layers", layers);
  visitor.child("ln", ln);
}

Tensor Encoder::forward(TensorView input) const {
  check_tokens(input, "Encoder");
  return ln(layers(input + pos_embedding));
}

namespace {

std::int64_t checked_image_size(std::int64_t image_size, std::int64_t patch_size) {
  if (patch_size <= 0 || image_size <= 0 || image_size % patch_size != 0)
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::VisionTransformer: Input shape indivisible by patch size! "
                "(image_size " +
                    std::to_string(image_size) + ", patch_size " + std::to_string(patch_size) +
                    ")");
  return image_size;
}

nn::Sequential make_heads(std::int64_t hidden_dim, const VisionTransformerOptions& options) {
  nn::Sequential heads;
  if (!options.representation_size) {
    heads.push("head", nn::Linear(hidden_dim, options.num_classes));
    return heads;
  }
  heads.push("pre_logits", nn::Linear(hidden_dim, *options.representation_size));
  heads.push("act", nn::Tanh());
  heads.push("head", nn::Linear(*options.representation_size, options.num_classes));
  return heads;
}

/// VisionTransformer's `conv_proj`: the patch convolution, or the
/// convolutional stem of `stem` ending in a 1x1 convolution to hidden_dim.
std::unique_ptr<nn::Module> make_conv_proj(std::int64_t patch_size, std::int64_t hidden_dim,
                                           const std::optional<std::vector<ConvStemConfig>>& stem) {
  if (!stem)
    return std::make_unique<nn::Conv2d>(3, hidden_dim, patch_size,
                                        nn::Conv2dOptions{.stride = patch_size});
  auto layers = std::make_unique<nn::Sequential>();
  std::int64_t channels = 3;
  for (std::size_t i = 0; i < stem->size(); ++i) {
    const ConvStemConfig& config = (*stem)[i];
    if (config.out_channels <= 0 || config.kernel_size <= 0 || config.stride <= 0)
      throw Error(ErrorCode::BadArgument,
                  "fp::vision::models::VisionTransformer: conv_stem_configs[" + std::to_string(i) +
                      "] needs positive out_channels, kernel_size and stride");
    layers->push("conv_bn_relu_" + std::to_string(i),
                 detail::conv_norm_activation(channels, config.out_channels, config.kernel_size,
                                              {.stride = config.stride}));
    channels = config.out_channels;
  }
  layers->push("conv_last", nn::Conv2d(channels, hidden_dim, 1));
  return layers;
}

}  // namespace

VisionTransformer::VisionTransformer(std::int64_t patch_size, std::int64_t num_layers,
                                     std::int64_t num_heads, std::int64_t hidden_dim,
                                     std::int64_t mlp_dim, const VisionTransformerOptions& options)
    : class_token(detail::zero_parameter({1, 1, hidden_dim})),
      conv_proj(make_conv_proj(patch_size, hidden_dim, options.conv_stem_configs)),
      encoder(
          [&] {
            const std::int64_t side =
                checked_image_size(options.image_size, patch_size) / patch_size;
            return side * side + 1;
          }(),
          num_layers, num_heads, hidden_dim, mlp_dim, options.dropout, options.attention_dropout),
      heads(make_heads(hidden_dim, options)),
      image_size(options.image_size),
      patch_size(patch_size),
      hidden_dim(hidden_dim) {}

void VisionTransformer::visit(nn::Visitor& visitor) {
  visitor.parameter("class_token", class_token);
  visitor.child("conv_proj", *conv_proj);
  visitor.child("encoder", encoder);
  visitor.child("heads", heads);
}

Tensor VisionTransformer::forward(TensorView input) const {
  if (input.dim() != 4)
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::VisionTransformer: expected [N, C, H, W] images, got " +
                    fp::detail::torch_size(input.sizes()));
  const std::int64_t n = input.size(0);
  for (const auto& [side, size] : {std::pair{"height", input.size(2)}, {"width", input.size(3)}})
    if (size != image_size)
      throw Error(ErrorCode::BadArgument,
                  std::string("fp::vision::models::VisionTransformer: Wrong image ") + side +
                      "! Expected " + std::to_string(image_size) + " but got " +
                      std::to_string(size) + "!");
  const std::int64_t patches = (image_size / patch_size) * (image_size / patch_size);
  // (n, c, h, w) -> (n, hidden_dim, n_h, n_w) -> (n, n_h * n_w, hidden_dim)
  const Tensor projected = (*conv_proj)(input).reshape({n, hidden_dim, patches});
  const Tensor tokens =
      aten::cat({class_token.expand({n, -1, -1}), projected.permute({0, 2, 1})}, 1);
  const Tensor encoded = encoder(tokens);
  return heads(encoded.select(1, 0));
}

VisionTransformer vit_b_16(const VisionTransformerOptions& options) {
  return VisionTransformer(16, 12, 12, 768, 3072, options);
}

VisionTransformer vit_b_32(const VisionTransformerOptions& options) {
  return VisionTransformer(32, 12, 12, 768, 3072, options);
}

VisionTransformer vit_l_16(const VisionTransformerOptions& options) {
  return VisionTransformer(16, 24, 16, 1024, 4096, options);
}

VisionTransformer vit_l_32(const VisionTransformerOptions& options) {
  return VisionTransformer(32, 24, 16, 1024, 4096, options);
}

VisionTransformer vit_h_14(const VisionTransformerOptions& options) {
  return VisionTransformer(14, 32, 16, 1280, 5120, options);
}

}  // namespace fp::vision::models
