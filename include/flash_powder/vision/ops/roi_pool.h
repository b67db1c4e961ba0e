// torchvision.ops.roi_pool: Fast R-CNN's RoI max pooling.
// https://pytorch.org/vision/stable/generated/torchvision.ops.roi_pool.html
#pragma once

#include <vector>

#include "flash_powder/core/tensor.h"
#include "flash_powder/vision/ops/roi.h"

namespace fp::vision::ops {

/// torchvision.ops.roi_pool: the maximum of each of `output_size` bins of
/// every region (rounded to whole pixels of `input` after `spatial_scale`);
/// an empty bin gives 0. `input` is [N, C, H, W], float32 or float64, CPU;
/// `rois` [K, 5] rows (batch index, x1, y1, x2, y2) of the same dtype.
/// [K, C, height, width], a new Tensor equal to torchvision's bit for bit.
/// Throws fp::Error as roi_align does.
Tensor roi_pool(TensorView input, TensorView rois, PooledSize output_size,
                double spatial_scale = 1.0);

/// roi_pool with one [L, 4] tensor of boxes per image of `input`.
Tensor roi_pool(TensorView input, const std::vector<TensorView>& boxes, PooledSize output_size,
                double spatial_scale = 1.0);

}  // namespace fp::vision::ops
