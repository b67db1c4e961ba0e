// Layers without parameters that reshape or pass through: torch.nn.Dropout,
// Flatten, Upsample, PixelShuffle.
#pragma once

#include <cstdint>

#include "flash_powder/nn/functional/vision.h"
#include "flash_powder/nn/module.h"

namespace fp::nn {

/// In eval mode, which is what flash_powder runs, the identity (a copy of the
/// input). Throws fp::Error unless 0 <= p <= 1, like Python.
/// https://pytorch.org/docs/stable/generated/torch.nn.Dropout.html
class Dropout : public Module {
 public:
  explicit Dropout(double p = 0.5);
  Tensor forward(TensorView input) const override;
  double p;
};

/// Flattens dimensions start_dim..end_dim into one.
/// https://pytorch.org/docs/stable/generated/torch.nn.Flatten.html
class Flatten : public Module {
 public:
  explicit Flatten(std::int64_t start_dim = 1, std::int64_t end_dim = -1)
      : start_dim(start_dim), end_dim(end_dim) {}
  Tensor forward(TensorView input) const override;
  std::int64_t start_dim;
  std::int64_t end_dim;
};

/// Python's nn.Upsample keywords (no antialias, as in Python).
struct UpsampleOptions {
  PerDimension<std::int64_t> size;
  PerDimension<double> scale_factor;
  std::string mode = "nearest";
  std::optional<bool> align_corners;
  std::optional<bool> recompute_scale_factor;
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
