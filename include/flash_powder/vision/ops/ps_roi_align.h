// torchvision.ops.ps_roi_align: R-FCN's position-sensitive RoIAlign.
// https://pytorch.org/vision/stable/generated/torchvision.ops.ps_roi_align.html
#pragma once

#include <cstdint>
#include <vector>

#include "flash_powder/core/tensor.h"
#include "flash_powder/vision/ops/roi.h"

namespace fp::vision::ops {

/// torchvision.ops.ps_roi_align: like roi_align (always aligned by -0.5
/// pixel), but bin (i, j) of output channel c averages input channel
/// (c * height + i) * width + j. `input` is [N, C, H, W] with C a multiple of
/// height * width, float16 (rounded after each operation, as torchvision's
/// kernel), float32 or float64, CPU; the result [K, C / (height *
/// width), height, width], a new Tensor equal to torchvision's bit for bit.
/// Throws fp::Error as roi_align does, and for C not such a multiple.
Tensor ps_roi_align(TensorView input, TensorView rois, PooledSize output_size,
                    double spatial_scale = 1.0, std::int64_t sampling_ratio = -1);

/// ps_roi_align with one [L, 4] tensor of boxes per image of `input`.
Tensor ps_roi_align(TensorView input, const std::vector<TensorView>& boxes, PooledSize output_size,
                    double spatial_scale = 1.0, std::int64_t sampling_ratio = -1);

}  // namespace fp::vision::ops
