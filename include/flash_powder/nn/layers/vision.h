// torch.nn's vision layers: Upsample and PixelShuffle (fp::functional's
// interpolate and pixel_shuffle as layers).
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

/// https://pytorch.org/docs/stable/generated/torch.nn.PixelShuffle.html
class PixelShuffle : public Module {
 public:
  /// [*, C * r * r, H, W] -> [*, C, H * r, W * r] for r = `upscale_factor`.
  explicit PixelShuffle(std::int64_t upscale_factor) : upscale_factor(upscale_factor) {}
  Tensor forward(TensorView input) const override;
  /// The factor r.
  std::int64_t upscale_factor;
};

}  // namespace fp::nn
