// Converting image tensors: dtype scaling, display scaling, resizing.
#pragma once

#include <cstdint>
#include <optional>

#include "flash_powder/core/options.h"
#include "flash_powder/core/tensor.h"

namespace fp::image {

/// Options of floatify.
struct FloatifyOptions {
  DType dtype = DType::F32;                     ///< a floating dtype
  std::optional<Device> device = std::nullopt;  ///< where the result lives (default: the input's)
};

/// An integer image (uint8 or uint16) scaled to [0, 1] in a floating dtype.
/// Python: `torchvision.transforms.v2.functional.to_dtype(x, torch.float32, scale=True)`
/// (the seed's `image_floatify`). A floating image is only converted.
Tensor floatify(TensorView image, const FloatifyOptions& options = {});

/// Min-max scales any real tensor into [0, 1] (float32, or the input's
/// floating dtype) for display; a constant tensor becomes zeros. The seed's
/// `image_scale_to_domain`.
Tensor scale_to_domain(TensorView image);

/// Interpolation of resize. Python: `torchvision.transforms.InterpolationMode`.
enum class Interpolation { Nearest, NearestExact, Bilinear, Bicubic, Lanczos };

/// Options of resize. Python: `torchvision.transforms.v2.functional.resize`'s keywords.
struct ResizeOptions {
  /// How to compute new pixels.
  Interpolation interpolation = Interpolation::Bilinear;
  /// Antialias when downsampling (bilinear, bicubic; lanczos always does).
  bool antialias = true;
};

/// Resizes a [..., H, W] image (uint8 or floating, CPU or CUDA) to `height` x
/// `width` through ATen's interpolate kernels, uint8 without a float round
/// trip. Python: `torchvision.transforms.v2.functional.resize(x, [height, width])`,
/// bit for bit. The seed's `image_resize`.
Tensor resize(TensorView image, std::int64_t height, std::int64_t width,
              const ResizeOptions& options = {});

}  // namespace fp::image
