// User code in the style the docs teach (docs/guide/nn.md): option structs filled with
// designated initialisers, naming only the options that differ from
// PyTorch's defaults. tools/check_user_warnings.py compiles it with
// -Wall -Wextra -Werror (GCC's -Wmissing-field-initializers included), as a
// user's own build would, so every option struct must give every member a
// default.
#include <flash_powder/flash_powder.h>
#include <flash_powder/image/image.h>
#include <flash_powder/safetensors/safetensors.h>

#include <optional>

struct Block : fp::nn::Module {
  fp::nn::Conv2d conv{3, 8, 3, {.padding = 1}};
  fp::nn::BatchNorm2d bn{8, {.eps = 1e-3}};
  fp::nn::Linear head{8, 10, {.bias = false}};
  fp::nn::LayerNorm norm{std::vector<std::int64_t>{10}, {.eps = 1e-12}};
  fp::nn::GroupNorm groups{2, 8, {.affine = false}};
  fp::nn::Embedding embed{30, 4, {.padding_idx = 0}};
  fp::nn::MaxPool2d pool{2, {.stride = 1}};
  fp::nn::AvgPool2d average{2, {.ceil_mode = true}};
  fp::nn::Upsample up{{.scale_factor = 2.0, .mode = "bilinear"}};
  fp::nn::MultiheadAttention attention{8, 2, {.batch_first = true}};
  fp::nn::ConvTranspose2d deconv{8, 3, 2, {.stride = 2}};
  fp::nn::TransformerEncoderLayer encoder_layer{8, 2, {.dim_feedforward = 16, .batch_first = true}};
  fp::nn::TransformerEncoder encoder{encoder_layer, 2, {.norm = fp::nn::LayerNorm(8)}};
  fp::nn::TransformerDecoderLayer decoder_layer{8, 2, {.activation = "gelu", .norm_first = true}};
  fp::nn::Transformer transformer{{.d_model = 8, .nhead = 2, .num_encoder_layers = 1}};
  FP_MODULE(conv, bn, head, norm, groups, embed, pool, average, up, attention, deconv,
            encoder_layer, encoder, decoder_layer, transformer)
};

fp::Tensor user_code(const fp::Tensor& x, const fp::Tensor& w) {
  namespace F = fp::functional;
  fp::Tensor y = F::conv2d(x, w, std::nullopt, {.stride = 2, .padding = 1});
  y = F::interpolate(y, {.scale_factor = 2.0, .mode = "nearest"});
  y = F::max_pool2d(y, 2, {.stride = 1});
  y = F::layer_norm(y, {y.size(-1)}, {.eps = 1e-12});
  y = F::softmax(y, -1, {.dtype = fp::DType::F64});
  y = F::scaled_dot_product_attention(y, y, y, {.is_causal = true});
  y = F::gelu(y, {.approximate = "tanh"});
  y = F::pad(y, {1, 1}, {.mode = "constant"});
  Block block;
  const fp::Tensor memory = block.encoder.forward(
      x, {.src_key_padding_mask = x.i(fp::all, fp::all, 0).gt(0.0), .is_causal = false});
  y = block.transformer.forward(
      x, x, {.tgt_mask = fp::nn::Transformer::generate_square_subsequent_mask(4)});
  y = block.decoder_layer.forward(y, memory, {.tgt_is_causal = true});
  block.load_state_dict(fp::safetensors::MappedFile::open("model.safetensors"), {.assign = true});
  block.load_state_dict(block.state_dict(), {.strict = false});
  fp::image::write_png(fp::image::read_image("in.png", {.mode = fp::image::ImageReadMode::RGB}),
                       "out.png", {});
  return y;
}
