// torchvision/models/swin_transformer.py, layer for layer: the arithmetic of
// shifted_window_attention in its order (the bits depend on it).
#include "flash_powder/vision/models/swin_transformer.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "flash_powder/aten/aten.h"
#include "flash_powder/base/error.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/functions.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/functional/activation.h"
#include "flash_powder/functional/linear.h"
#include "flash_powder/functional/normalization.h"
#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/vision/ops/permute.h"
#include "vision/models/transformer_parts.h"

namespace fp::vision::models {
namespace {

using Pair = std::array<std::int64_t, 2>;

/// V2's relative_coords_table, with torchvision's float32 ops in its order.
Tensor relative_coords_table_of(Pair window) {
  const auto coords = [](std::int64_t size) { return arange(-(size - 1), size, 1, DType::F32); };
  // torch.meshgrid(h, w, indexing="ij"): h down the rows, w along them (the
  // op itself would send "ij" through torch_call_dispatcher, which leaks
  // strings on torch 2.10-2.13).
  const Tensor h = coords(window[0]), w = coords(window[1]);
  const Tensor grid_h = h.unsqueeze(1).expand({h.size(0), w.size(0)}).to_owned();
  const Tensor grid_w = w.unsqueeze(0).expand({h.size(0), w.size(0)}).to_owned();
  Tensor table = stack({grid_h, grid_w}).permute({1, 2, 0}).contiguous().unsqueeze(0).to_owned();
  table.i_mut(all, all, all, 0).div_(window[0] - 1);
  table.i_mut(all, all, all, 1).div_(window[1] - 1);
  table.mul_(8);
  return aten::sign(table) * aten::log2(table.abs() + 1.0) / 3.0;
}

void check_attention(std::int64_t dim, Pair window, std::int64_t num_heads, SwinVersion version) {
  const std::int64_t least = version == SwinVersion::V2 ? 2 : 1;
  if (window[0] < least || window[1] < least || num_heads <= 0 || dim % num_heads != 0)
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::ShiftedWindowAttention: window_size " +
                    std::to_string(window[0]) + "x" + std::to_string(window[1]) + ", " +
                    std::to_string(num_heads) + " heads over " + std::to_string(dim) +
                    " channels: the windows need sides of at least " + std::to_string(least) +
                    " and the heads must divide the channels");
}

/// Python's `a[start:stop]` bounds on a dimension of `size` (negative from
/// the end, None as `std::nullopt`), as [lo, hi).
std::pair<std::int64_t, std::int64_t> python_slice(std::int64_t start,
                                                   std::optional<std::int64_t> stop,
                                                   std::int64_t size) {
  const auto clamp_index = [size](std::int64_t i) {
    return std::clamp<std::int64_t>(i < 0 ? i + size : i, 0, size);
  };
  return {clamp_index(start), stop ? clamp_index(*stop) : size};
}

/// The shifted windows' attention mask, [windows, N, N]: -100 between tokens
/// of different regions of the shifted map, 0 elsewhere (torchvision's
/// attn_mask, whose values are exact).
Tensor shift_mask(std::int64_t pad_h, std::int64_t pad_w, Pair window, Pair shift) {
  std::vector<float> region(static_cast<std::size_t>(pad_h * pad_w), 0.0f);
  const auto slices = [](std::int64_t w, std::int64_t s) {
    return std::array<std::pair<std::int64_t, std::optional<std::int64_t>>, 3>{
        {{0, -w}, {-w, -s}, {-s, std::nullopt}}};
  };
  float count = 0;
  for (const auto& [h_start, h_stop] : slices(window[0], shift[0]))
    for (const auto& [w_start, w_stop] : slices(window[1], shift[1])) {
      const auto [top, bottom] = python_slice(h_start, h_stop, pad_h);
      const auto [left, right] = python_slice(w_start, w_stop, pad_w);
      for (std::int64_t y = top; y < bottom; ++y)
        for (std::int64_t x = left; x < right; ++x)
          region[static_cast<std::size_t>(y * pad_w + x)] = count;
      ++count;
    }
  const std::int64_t rows = pad_h / window[0], columns = pad_w / window[1];
  const std::int64_t tokens = window[0] * window[1];
  const auto region_of = [&](std::int64_t win, std::int64_t token) {
    const std::int64_t y = (win / columns) * window[0] + token / window[1];
    const std::int64_t x = (win % columns) * window[1] + token % window[1];
    return region[static_cast<std::size_t>(y * pad_w + x)];
  };
  std::vector<float> mask;
  mask.reserve(static_cast<std::size_t>(rows * columns * tokens * tokens));
  for (std::int64_t win = 0; win < rows * columns; ++win)
    for (std::int64_t a = 0; a < tokens; ++a)
      for (std::int64_t b = 0; b < tokens; ++b)
        mask.push_back(region_of(win, b) - region_of(win, a) != 0 ? -100.0f : 0.0f);
  return tensor(mask).reshape({rows * columns, tokens, tokens});
}

}  // namespace

ShiftedWindowAttention::ShiftedWindowAttention(std::int64_t dim, Pair window_size, Pair shift_size,
                                               std::int64_t num_heads, SwinVersion version)
    : window_size((check_attention(dim, window_size, num_heads, version), window_size)),
      shift_size(shift_size),
      num_heads(num_heads),
      version(version),
      qkv(dim, dim * 3),
      proj(dim, dim),
      relative_position_index(
          detail::on_default_device(detail::relative_position_index(window_size))) {
  if (version == SwinVersion::V1) {
    relative_position_bias_table =
        detail::zero_parameter({(2 * window_size[0] - 1) * (2 * window_size[1] - 1), num_heads});
    return;
  }
  // torch.log(10 * torch.ones(...)): set when the weights are loaded.
  logit_scale = detail::zero_parameter({num_heads, 1, 1});
  relative_coords_table = detail::on_default_device(relative_coords_table_of(window_size));
  cpb_mlp.push(nn::Linear(2, 512))
      .push(nn::ReLU())
      .push(nn::Linear(512, num_heads, {.bias = false}));
}

void ShiftedWindowAttention::visit(nn::Visitor& visitor) {
  // Python's order: the parameter and buffers the class registers, then qkv
  // and proj (registered first, but children come after), then cpb_mlp.
  if (version == SwinVersion::V1) {
    visitor.parameter("relative_position_bias_table", relative_position_bias_table);
  } else {
    visitor.parameter("logit_scale", logit_scale);
    visitor.buffer("relative_coords_table", relative_coords_table);
  }
  visitor.buffer("relative_position_index", relative_position_index);
  visitor.child("qkv", qkv);
  visitor.child("proj", proj);
  if (version == SwinVersion::V2) visitor.child("cpb_mlp", cpb_mlp);
}

Tensor ShiftedWindowAttention::relative_position_bias() const {
  const std::int64_t tokens = window_size[0] * window_size[1];
  const Tensor table = version == SwinVersion::V1
                           ? relative_position_bias_table
                           : cpb_mlp(relative_coords_table).view({-1, num_heads}).to_owned();
  Tensor bias = aten::index_Tensor(table, {relative_position_index})
                    .view({tokens, tokens, -1})
                    .permute({2, 0, 1})
                    .contiguous()
                    .unsqueeze(0)
                    .to_owned();
  if (version == SwinVersion::V1) return bias;
  return 16 * aten::sigmoid(bias);
}

namespace {

std::optional<TensorView> optional_view(const Tensor& tensor) {
  if (tensor.is_defined()) return TensorView(tensor);
  return std::nullopt;
}

}  // namespace

Tensor ShiftedWindowAttention::attention(TensorView windows,
                                         const std::optional<Tensor>& mask) const {
  const std::int64_t count = windows.size(0), tokens = windows.size(1), channels = windows.size(2);
  // V2 leaves the keys unbiased: a copy of the bias with its middle third zero.
  Tensor qkv_bias = qkv.bias;
  if (version == SwinVersion::V2 && qkv_bias.is_defined()) {
    const std::int64_t length = qkv_bias.numel() / 3;
    qkv_bias.i_mut(slice(length, 2 * length)).zero_();
  }
  const Tensor projected = functional::linear(windows, qkv.weight, optional_view(qkv_bias))
                               .reshape({count, tokens, 3, num_heads, channels / num_heads})
                               .permute({2, 0, 3, 1, 4})
                               .to_owned();
  const TensorView q = projected.select(0, 0), k = projected.select(0, 1),
                   v = projected.select(0, 2);
  Tensor attn;
  if (version == SwinVersion::V2) {  // cosine attention
    attn = matmul(functional::normalize(q, {.dim = -1}),
                  functional::normalize(k, {.dim = -1}).transpose(-2, -1));
    attn = attn * clamp(logit_scale, std::nullopt, std::log(100.0)).exp();
  } else {
    // Python's `(C // num_heads) ** -0.5`: the integer quotient, then a double power.
    const std::int64_t head_dim = channels / num_heads;
    attn = matmul(q * std::pow(static_cast<double>(head_dim), -0.5), k.transpose(-2, -1));
  }
  attn = attn + relative_position_bias();
  if (mask) {
    const std::int64_t per_image = mask->size(0);
    attn = (attn.view({count / per_image, per_image, num_heads, tokens, tokens}) +
            mask->unsqueeze(1).unsqueeze(0))
               .view({-1, num_heads, tokens, tokens})
               .to_owned();
  }
  attn = functional::softmax(attn, -1);
  const Tensor heads = matmul(attn, v).transpose(1, 2).reshape({count, tokens, channels});
  return functional::linear(heads, proj.weight, optional_view(proj.bias));
}

Tensor ShiftedWindowAttention::forward(TensorView input) const {
  const std::int64_t batch = input.size(0), height = input.size(1), width = input.size(2),
                     channels = input.size(3);
  const auto [wh, ww] = window_size;
  // Pad the map to multiples of the window.
  const std::int64_t pad_r = (ww - width % ww) % ww, pad_b = (wh - height % wh) % wh;
  Tensor x = aten::pad(input, {0, 0, 0, pad_r, 0, pad_b});
  const std::int64_t pad_h = x.size(1), pad_w = x.size(2);
  // No shift where the window covers the map.
  Pair shift = shift_size;
  if (wh >= pad_h) shift[0] = 0;
  if (ww >= pad_w) shift[1] = 0;
  std::optional<Tensor> mask;
  if (shift[0] + shift[1] > 0) {
    x = aten::roll(x, {-shift[0], -shift[1]}, {1, 2});
    mask = shift_mask(pad_h, pad_w, window_size, shift)
               .to(TensorOptions().dtype(x.dtype()).device(x.device()));
  }
  // Windows [B * windows, Wh * Ww, C] attended, and put back in their places.
  x = attention(x.view({batch, pad_h / wh, wh, pad_w / ww, ww, channels})
                    .permute({0, 1, 3, 2, 4, 5})
                    .reshape({-1, wh * ww, channels}),
                mask)
          .view({batch, pad_h / wh, pad_w / ww, wh, ww, channels})
          .permute({0, 1, 3, 2, 4, 5})
          .reshape({batch, pad_h, pad_w, channels});
  if (mask) x = aten::roll(x, {shift[0], shift[1]}, {1, 2});
  return x.i(all, slice(0, height), slice(0, width), all).contiguous();
}

SwinTransformerBlock::SwinTransformerBlock(std::int64_t dim, std::int64_t num_heads,
                                           Pair window_size, Pair shift_size, SwinVersion version,
                                           const SwinTransformerOptions& options)
    : norm1(dim),
      attn(dim, window_size, shift_size, num_heads, version),
      norm2(dim),
      mlp(detail::gelu_mlp(dim,
                           static_cast<std::int64_t>(static_cast<double>(dim) * options.mlp_ratio),
                           options.dropout)),
      version(version) {
  // torchvision's F.dropout refuses a probability outside [0, 1] (when it runs); so does this.
  const nn::Dropout attention_dropout(options.attention_dropout);
}

void SwinTransformerBlock::visit(nn::Visitor& visitor) {
  visitor.child("norm1", norm1);
  visitor.child("attn", attn);
  visitor.child("norm2", norm2);
  visitor.child("mlp", mlp);
}

Tensor SwinTransformerBlock::forward(TensorView input) const {
  if (version == SwinVersion::V1) {
    const Tensor x = input + attn(norm1(input));
    return x + mlp(norm2(x));
  }
  const Tensor x = input + norm1(attn(input));
  return x + norm2(mlp(x));
}

PatchMerging::PatchMerging(std::int64_t dim, SwinVersion version)
    : reduction(4 * dim, 2 * dim, {.bias = false}),
      norm(version == SwinVersion::V1 ? 4 * dim : 2 * dim),
      version(version) {}

void PatchMerging::visit(nn::Visitor& visitor) {
  visitor.child("reduction", reduction);
  visitor.child("norm", norm);
}

Tensor PatchMerging::forward(TensorView input) const {
  const std::int64_t height = input.size(-3), width = input.size(-2);
  const Tensor x = aten::pad(input, {0, 0, 0, width % 2, 0, height % 2});
  const auto part = [&x](std::int64_t row, std::int64_t column) {
    return x.i(ellipsis, slice(row, end, 2), slice(column, end, 2), all);
  };
  const Tensor merged = aten::cat({part(0, 0), part(1, 0), part(0, 1), part(1, 1)}, -1);
  if (version == SwinVersion::V1) return reduction(norm(merged));
  return norm(reduction(merged));
}

namespace {

nn::Sequential swin_features(Pair patch_size, std::int64_t embed_dim,
                             const std::vector<std::int64_t>& depths,
                             const std::vector<std::int64_t>& num_heads, Pair window_size,
                             SwinVersion version, const SwinTransformerOptions& options) {
  if (depths.empty() || depths.size() != num_heads.size())
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::SwinTransformer: depths and num_heads need one entry per "
                "stage (got " +
                    std::to_string(depths.size()) + " and " + std::to_string(num_heads.size()) +
                    ")");
  detail::check_stochastic_depth(options.stochastic_depth_prob, "SwinTransformer");
  nn::Sequential features;
  features.push(nn::Sequential(nn::Conv2d(3, embed_dim, {patch_size[0], patch_size[1]},
                                          {.stride = {patch_size[0], patch_size[1]}}),
                               ops::Permute({0, 2, 3, 1}), nn::LayerNorm(embed_dim)));
  for (std::size_t stage = 0; stage < depths.size(); ++stage) {
    const std::int64_t dim = embed_dim << stage;
    nn::Sequential blocks;
    for (std::int64_t layer = 0; layer < depths[stage]; ++layer) {
      const Pair shift = layer % 2 == 0 ? Pair{0, 0} : Pair{window_size[0] / 2, window_size[1] / 2};
      blocks.push(
          SwinTransformerBlock(dim, num_heads[stage], window_size, shift, version, options));
    }
    features.push(std::move(blocks));
    if (stage + 1 < depths.size()) features.push(PatchMerging(dim, version));
  }
  return features;
}

}  // namespace

SwinTransformer::SwinTransformer(Pair patch_size, std::int64_t embed_dim,
                                 const std::vector<std::int64_t>& depths,
                                 const std::vector<std::int64_t>& num_heads, Pair window_size,
                                 SwinVersion version, const SwinTransformerOptions& options)
    : features(
          swin_features(patch_size, embed_dim, depths, num_heads, window_size, version, options)),
      norm(embed_dim << (depths.size() - 1)),
      head(embed_dim << (depths.size() - 1), options.num_classes) {}

void SwinTransformer::visit(nn::Visitor& visitor) {
  visitor.child("features", features);
  visitor.child("norm", norm);
  visitor.child("avgpool", avgpool);
  visitor.child("head", head);
}

Tensor SwinTransformer::forward(TensorView input) const {
  // B H W C -> B C H W as a permuted view: the pooling sees torchvision's strides.
  const Tensor pooled = avgpool(norm(features(input)).permute({0, 3, 1, 2}));
  return head(pooled.flatten(1));
}

SwinTransformer swin_t(const SwinTransformerOptions& options) {
  return SwinTransformer({4, 4}, 96, {2, 2, 6, 2}, {3, 6, 12, 24}, {7, 7}, SwinVersion::V1,
                         options);
}

SwinTransformer swin_s(const SwinTransformerOptions& options) {
  return SwinTransformer({4, 4}, 96, {2, 2, 18, 2}, {3, 6, 12, 24}, {7, 7}, SwinVersion::V1,
                         options);
}

SwinTransformer swin_b(const SwinTransformerOptions& options) {
  return SwinTransformer({4, 4}, 128, {2, 2, 18, 2}, {4, 8, 16, 32}, {7, 7}, SwinVersion::V1,
                         options);
}

SwinTransformer swin_v2_t(const SwinTransformerOptions& options) {
  return SwinTransformer({4, 4}, 96, {2, 2, 6, 2}, {3, 6, 12, 24}, {8, 8}, SwinVersion::V2,
                         options);
}

SwinTransformer swin_v2_s(const SwinTransformerOptions& options) {
  return SwinTransformer({4, 4}, 96, {2, 2, 18, 2}, {3, 6, 12, 24}, {8, 8}, SwinVersion::V2,
                         options);
}

SwinTransformer swin_v2_b(const SwinTransformerOptions& options) {
  return SwinTransformer({4, 4}, 128, {2, 2, 18, 2}, {4, 8, 16, 32}, {8, 8}, SwinVersion::V2,
                         options);
}

}  // namespace fp::vision::models
