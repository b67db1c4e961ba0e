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
  PerDimension<std::int64_t> size{};
  PerDimension<double> scale_factor{};
  std::string mode = "nearest";
  std::optional<bool> align_corners{};
  std::optional<bool> recompute_scale_factor{};
};

/// fp::functional::interpolate as a layer.
/// https://pytorch.org/docs/stable/generated/torch.nn.Upsample.html
class Upsample : public Module {
 public:
  explicit Upsample(const UpsampleOptions& options) : options(options) {}
  Tensor forward(TensorView input) const override;
  UpsampleOptions options;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.PixelShuffle.html
class PixelShuffle : public Module {
 public:
  explicit PixelShuffle(std::int64_t upscale_factor) : upscale_factor(upscale_factor) {}
  Tensor forward(TensorView input) const override;
  std::int64_t upscale_factor;
};

}  // namespace fp::nn
