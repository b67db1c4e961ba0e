// torchvision.ops.ps_roi_pool: R-FCN's position-sensitive RoI pooling.
// https://pytorch.org/vision/stable/generated/torchvision.ops.ps_roi_pool.html
#pragma once

#include <vector>

#include "flash_powder/core/tensor.h"
#include "flash_powder/vision/ops/roi.h"

namespace fp::vision::ops {

/// torchvision.ops.ps_roi_pool: the mean of each whole-pixel bin, bin (i, j)
/// of output channel c read from input channel (c * height + i) * width + j;
/// an empty bin gives 0. Arguments and result as ps_roi_align's.
Tensor ps_roi_pool(TensorView input, TensorView rois, PooledSize output_size,
                   double spatial_scale = 1.0);

/// ps_roi_pool with one [L, 4] tensor of boxes per image of `input`.
Tensor ps_roi_pool(TensorView input, const std::vector<TensorView>& boxes, PooledSize output_size,
                   double spatial_scale = 1.0);

}  // namespace fp::vision::ops
