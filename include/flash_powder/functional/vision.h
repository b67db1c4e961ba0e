// Vision functions: torch.nn.functional.pad, interpolate, upsample,
// upsample_nearest, upsample_bilinear, pixel_shuffle, pixel_unshuffle and
// channel_shuffle (grid_sample and affine_grid: functional/grid_sample.h;
// fold and unfold: functional/fold.h).
// https://pytorch.org/docs/stable/nn.functional.html#vision-functions
//
//     fp::functional::pad(x, {1, 1, 2, 0}, {.mode = "reflect"});
//     fp::functional::interpolate(x, {.size = {8, 8}, .mode = "bicubic", .align_corners = true});
//     fp::functional::interpolate(x, {.scale_factor = 0.5, .mode = "bilinear", .antialias = true});
//
// Each returns a new Tensor, bit-exact with Python.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "flash_powder/core/array_ref.h"
#include "flash_powder/core/tensor.h"
#include "flash_powder/nn/options.h"

namespace fp::functional {

/// The keyword arguments of pad, with PyTorch's defaults.
struct PadOptions {
  /// "constant", "reflect", "replicate" or "circular".
  std::string mode = "constant";
  /// The fill value of "constant" (0 when absent).
  std::optional<double> value{};
};
/// `pad` holds (left, right) pairs starting from the last dimension, as in
/// Python: {1, 1} pads the last dimension, {1, 1, 2, 2} the last two.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.pad.html
Tensor pad(const TensorView& input, IntList pad, const PadOptions& options = {});

/// The keyword arguments of interpolate, with PyTorch's defaults.
struct InterpolateOptions {
  /// The output's spatial size: one value for all dimensions or one each.
  nn::PerDimension<std::int64_t> size{};
  /// Or the factor to scale each spatial dimension by. Exactly one of `size`
  /// and `scale_factor` must be given.
  nn::PerDimension<double> scale_factor{};
  /// "nearest", "nearest-exact", "linear" (3-D input), "bilinear" (4-D),
  /// "bicubic" (4-D), "trilinear" (5-D), "area" or "lanczos" (4-D, antialias).
  std::string mode = "nearest";
  /// Only for the interpolating modes (linear, bilinear, bicubic, trilinear,
  /// lanczos); false when absent.
  std::optional<bool> align_corners{};
  /// Compute the output size from scale_factor and interpolate with the
  /// scale that size implies (true), or with scale_factor itself.
  std::optional<bool> recompute_scale_factor{};
  /// Anti-aliasing when downsampling: bilinear and bicubic, 4-D input.
  bool antialias = false;
};
/// Resizes the spatial dimensions (all but the first two) of `input`.
/// Throws fp::Error with Python's message for invalid combinations.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.interpolate.html
Tensor interpolate(const TensorView& input, const InterpolateOptions& options);

/// The deprecated spelling of interpolate (antialias and
/// recompute_scale_factor are not part of it in Python).
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.upsample.html
Tensor upsample(const TensorView& input, const InterpolateOptions& options);

/// The `size` or `scale_factor` (exactly one) of upsample_nearest and
/// upsample_bilinear, and of nn::UpsamplingNearest2d / UpsamplingBilinear2d.
struct UpsamplingOptions {
  nn::PerDimension<std::int64_t> size{};
  nn::PerDimension<double> scale_factor{};
};
/// interpolate(input, {.size, .scale_factor, .mode = "nearest"}); deprecated
/// in Python in favour of interpolate.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.upsample_nearest.html
Tensor upsample_nearest(const TensorView& input, const UpsamplingOptions& options);
/// interpolate(input, {.size, .scale_factor, .mode = "bilinear", .align_corners = true});
/// deprecated in Python in favour of interpolate.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.upsample_bilinear.html
Tensor upsample_bilinear(const TensorView& input, const UpsamplingOptions& options);

/// [*, C*r*r, H, W] -> [*, C, H*r, W*r].
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.pixel_shuffle.html
Tensor pixel_shuffle(const TensorView& input, std::int64_t upscale_factor);
/// The inverse: [*, C, H*r, W*r] -> [*, C*r*r, H, W].
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.pixel_unshuffle.html
Tensor pixel_unshuffle(const TensorView& input, std::int64_t downscale_factor);

/// Splits the channels of [N, C, *] into `groups` groups of C/groups and
/// interleaves them: channel g*(C/groups)+k goes to k*groups+g.
/// https://pytorch.org/docs/stable/generated/torch.nn.ChannelShuffle.html
Tensor channel_shuffle(const TensorView& input, std::int64_t groups);
/// The same through ATen's native kernel (Python's F.native_channel_shuffle).
Tensor native_channel_shuffle(const TensorView& input, std::int64_t groups);

}  // namespace fp::functional
