// torchvision.ops.roi_align: Mask R-CNN's RoIAlign.
// https://pytorch.org/vision/stable/generated/torchvision.ops.roi_align.html
//
//     fp::Tensor pooled = fp::vision::ops::roi_align(features, rois, 7,
//                                                    {.spatial_scale = 0.25, .sampling_ratio = 2});
#pragma once

#include <cstdint>
#include <vector>

#include "flash_powder/core/tensor.h"
#include "flash_powder/vision/ops/roi.h"

namespace fp::vision::ops {

/// roi_align's keyword arguments, with torchvision's defaults.
struct RoiAlignOptions {
  /// Maps box coordinates to the input's: 1/4 for a map at a quarter of the image's size.
  double spatial_scale = 1.0;
  /// Samples per bin along each side; <= 0: ceil(roi size / output size).
  std::int64_t sampling_ratio = -1;
  /// Shift the boxes by -0.5 pixel, so that neighbouring pixels' centres align.
  bool aligned = false;
};

/// torchvision.ops.roi_align: each region of `input` ([N, C, H, W], float16,
/// float32 or float64, CPU; float16 computed as torchvision's kernel does,
/// rounding after each operation) averaged into `output_size` bins of bilinear samples;
/// [K, C, height, width], a new Tensor equal to torchvision's bit for bit.
/// `rois` is [K, 5]: (batch index, x1, y1, x2, y2), the input's dtype.
/// Throws fp::Error (BadArgument) for other shapes, dtypes, a batch index
/// out of range or a coordinate that is not finite; Unsupported off the CPU.
Tensor roi_align(TensorView input, TensorView rois, PooledSize output_size,
                 const RoiAlignOptions& options = {});

/// roi_align with one [L, 4] tensor of boxes per image of `input`.
Tensor roi_align(TensorView input, const std::vector<TensorView>& boxes, PooledSize output_size,
                 const RoiAlignOptions& options = {});

}  // namespace fp::vision::ops
