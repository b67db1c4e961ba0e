// What torchvision's RoI ops (roi_align, roi_pool, ps_roi_align, ps_roi_pool)
// share: the regions, given as one [K, 5] tensor of (batch index, x1, y1, x2,
// y2) rows or as one [L, 4] tensor of boxes per image, and the pooled size.
#pragma once

#include <cstdint>
#include <vector>

#include "flash_powder/core/tensor.h"

namespace fp::vision::ops {

/// The pooled output's height and width: `7` for 7 x 7, `{7, 5}` for 7 x 5
/// (torchvision's `output_size`, an int or a pair).
struct PooledSize {
  // Implicit on purpose: an int, like Python's output_size=7.
  // NOLINTBEGIN(google-explicit-constructor)
  /// Both sides `size`.
  PooledSize(std::int64_t size) : height(size), width(size) {}
  // NOLINTEND(google-explicit-constructor)
  /// `height` rows by `width` columns.
  PooledSize(std::int64_t height, std::int64_t width) : height(height), width(width) {}
  /// The output's rows.
  std::int64_t height;
  /// The output's columns.
  std::int64_t width;
};

/// torchvision.ops._utils.convert_boxes_to_roi_format: one [L_i, 4] tensor of
/// boxes per image to the [sum L_i, 5] rows (i, x1, y1, x2, y2); a new Tensor.
/// Throws fp::Error (BadArgument) for an empty list or a tensor not [L, 4].
Tensor convert_boxes_to_roi_format(const std::vector<TensorView>& boxes);

}  // namespace fp::vision::ops
