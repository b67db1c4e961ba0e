// From decoded pixels to a tensor (internal).
#pragma once

#include "flash_powder/core/tensor.h"
#include "raster.h"

namespace fp::image::detail {

/// A decoder's pixels written straight into a new uint8 tensor: planes, or
/// interleaved rows (DecodeOptions::interleaved).
class TensorSink final : public PlaneSink {
 public:
  explicit TensorSink(bool interleaved) : interleaved_(interleaved) {}
  bool interleaved() const override { return interleaved_; }
  std::uint8_t* allocate(int channels, std::int64_t height, std::int64_t width) override;
  /// What was written, as a [C, H, W] tensor.
  Tensor take();

 private:
  bool interleaved_;
  Tensor tensor_;  ///< [C, H, W], or (H, W, C) when interleaved
};

/// The raster as a [C, H, W] tensor, contiguous or over interleaved memory
/// as the options ask, EXIF orientation and dtype applied; the sink's tensor
/// when the decoder wrote into it.
Tensor finish(Raster&& raster, const DecodeOptions& options, TensorSink& sink);

}  // namespace fp::image::detail
