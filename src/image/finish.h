// From decoded pixels to a tensor (internal).
#pragma once

#include "flash_powder/core/tensor.h"
#include "raster.h"

namespace fp::image::detail {

/// A decoder's planes written straight into a new uint8 tensor.
class TensorSink final : public PlaneSink {
 public:
  std::uint8_t* allocate(int channels, std::int64_t height, std::int64_t width) override;
  Tensor tensor;
};

/// The raster as a contiguous [C, H, W] tensor, EXIF orientation and dtype
/// applied; the sink's tensor when the decoder wrote into it.
Tensor finish(Raster&& raster, const DecodeOptions& options, TensorSink& sink);

}  // namespace fp::image::detail
