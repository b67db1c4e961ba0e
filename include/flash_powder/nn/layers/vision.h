// torch.nn's vision layers: Upsample, UpsamplingNearest2d,
// UpsamplingBilinear2d, PixelShuffle, PixelUnshuffle and ChannelShuffle
// (fp::functional's interpolate, pixel_shuffle, pixel_unshuffle and
// channel_shuffle as layers). Fold and Unfold: nn/layers/fold.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "flash_powder/functional/vision.h"
#include "flash_powder/nn/module.h"

namespace fp::nn {

/// Python's nn.Upsample keywords (no antialias, as in Python).
struct UpsampleOptions {
  /// The output's spatial size (one value for every dimension, or one each).
  PerDimension<std::int64_t> size{};
  /// Or the factor to scale each spatial dimension by.
  PerDimension<double> scale_factor{};
  /// "nearest", "linear", "bilinear", "bicubic" or "trilinear".
  std::string mode = "nearest";
  /// Only for the interpolating modes; false when absent.
  std::optional<bool> align_corners{};
  /// Interpolate with the scale the output size implies, not scale_factor itself.
  std::optional<bool> recompute_scale_factor{};
};

/// fp::functional::interpolate as a layer.
/// https://pytorch.org/docs/stable/generated/torch.nn.Upsample.html
class Upsample : public Module {
 public:
  /// Upsampling as `options` say (exactly one of size and scale_factor).
  explicit Upsample(const UpsampleOptions& options) : options(options) {}
  Tensor forward(TensorView input) const override;
  /// Its keyword arguments.
  UpsampleOptions options;
};

/// `size` or `scale_factor` (exactly one), as Python's keywords.
using UpsamplingOptions = functional::UpsamplingOptions;

/// Nearest-neighbour upsampling: interpolate with mode "nearest".
/// https://pytorch.org/docs/stable/generated/torch.nn.UpsamplingNearest2d.html
class UpsamplingNearest2d : public Module {
 public:
  explicit UpsamplingNearest2d(const UpsamplingOptions& options) : options(options) {}
  Tensor forward(TensorView input) const override;
  UpsamplingOptions options;
};

/// Bilinear upsampling with align_corners = true, as in Python.
/// https://pytorch.org/docs/stable/generated/torch.nn.UpsamplingBilinear2d.html
class UpsamplingBilinear2d : public Module {
 public:
  explicit UpsamplingBilinear2d(const UpsamplingOptions& options) : options(options) {}
  Tensor forward(TensorView input) const override;
  UpsamplingOptions options;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.PixelShuffle.html
class PixelShuffle : public Module {
 public:
  /// [*, C * r * r, H, W] -> [*, C, H * r, W * r] for r = `upscale_factor`.
  explicit PixelShuffle(std::int64_t upscale_factor) : upscale_factor(upscale_factor) {}
  Tensor forward(TensorView input) const override;
  /// The factor r.
  std::int64_t upscale_factor;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.PixelUnshuffle.html
class PixelUnshuffle : public Module {
 public:
  explicit PixelUnshuffle(std::int64_t downscale_factor) : downscale_factor(downscale_factor) {}
  Tensor forward(TensorView input) const override;
  std::int64_t downscale_factor;
};

/// Interleaves `groups` groups of channels (functional::channel_shuffle).
/// https://pytorch.org/docs/stable/generated/torch.nn.ChannelShuffle.html
class ChannelShuffle : public Module {
 public:
  explicit ChannelShuffle(std::int64_t groups) : groups(groups) {}
  Tensor forward(TensorView input) const override;
  std::int64_t groups;
};

}  // namespace fp::nn
