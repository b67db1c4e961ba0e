// From decoded pixels to a tensor (internal).
#pragma once

#include "flash_powder/core/tensor.h"
#include "raster.h"

namespace fp::image::detail {

/// The raster as a contiguous [C, H, W] tensor, EXIF orientation and dtype applied.
Tensor finish(Raster&& raster, const DecodeOptions& options);

}  // namespace fp::image::detail
