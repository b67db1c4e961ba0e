// The checked arguments of the RoI kernels: shapes, dtypes, CPU, contiguous
// data, and regions whose batch index names an image and whose coordinates
// are finite (torchvision reads out of bounds, or converts infinities to int,
// for others).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "box_checks.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/tensor.h"
#include "flash_powder/vision/ops/roi.h"
#include "half_arithmetic.h"

namespace fp::vision::ops::detail {

/// How many channels of a region roi_align and roi_pool pool together: their
/// loads are independent, so the CPU keeps more of them in flight (the
/// kernels wait on memory); each output is still computed alone, in
/// torchvision's order.
constexpr std::int64_t kChannelsAtOnce = 4;

/// One RoI op's arguments, checked.
struct RoiArguments {
  /// Checks them; throws fp::Error naming `op`.
  RoiArguments(const char* op, TensorView input, TensorView rois, PooledSize size,
               double spatial_scale);

  /// The rows of `regions` (elements of type S), checked: the batch index of
  /// each names an image of `data` and every number is finite.
  template <class S>
  const S* checked_regions(const char* op) const {
    const S* rows = regions.data<S>().data();
    for (std::int64_t k = 0; k < num_rois; ++k) {
      const S* row = rows + 5 * k;
      for (int j = 0; j < 5; ++j) {
        if (!std::isfinite(static_cast<double>(Compute<S>(row[j])))) {
          refuse(op, "the coordinates of box " + std::to_string(k) + " should be finite");
        }
      }
      const double index = static_cast<double>(Compute<S>(row[0]));
      if (!(index > -1 && index < static_cast<double>(batch))) {
        refuse(op, "box " + std::to_string(k) + " has batch index " + std::to_string(index) +
                       ", not one of the input's " + std::to_string(batch) + " images");
      }
    }
    return rows;
  }

  /// Refuses dtypes other than float32 and float64, and float16 unless
  /// `half_too` (torchvision's CPU kernels' own sets).
  void require_float(const char* op, bool half_too = false) const {
    if (half_too && data.dtype() == DType::F16) return;
    if (data.dtype() == DType::F16 || data.dtype() == DType::BF16) {
      throw Error(ErrorCode::Unsupported,
                  std::string("fp::vision::ops::") + op + ": " + std::string(name(data.dtype())) +
                      " is not implemented; convert input and boxes to float32");
    }
    if (data.dtype() != DType::F32 && data.dtype() != DType::F64) {
      refuse(op, std::string("input should be ") + (half_too ? "float16, " : "") +
                     "float32 or float64, got " + std::string(name(data.dtype())));
    }
  }

  /// The output channels of a position-sensitive op: channels / (pooled
  /// height * width); refuses channels that are not such a multiple.
  std::int64_t position_sensitive_channels(const char* op) const {
    const std::int64_t bins = pooled_height * pooled_width;
    if (bins == 0 || channels % bins != 0) {
      refuse(op, "input channels (" + std::to_string(channels) +
                     ") must be a multiple of pooling height * pooling width");
    }
    return channels / bins;
  }

  /// The [K, channels_out, pooled height, pooled width] output, zeros of the
  /// input's dtype (float32 or float64, and float16 with `WithHalf`), filled
  /// by `kernel(S* output)` unless it is empty.
  template <bool WithHalf = false, class Kernel>
  Tensor pool(std::int64_t channels_out, Kernel&& kernel) const {
    Tensor output = fp::zeros({num_rois, channels_out, pooled_height, pooled_width}, data.dtype());
    if (output.numel() == 0) return output;
    if constexpr (WithHalf) {
      if (data.dtype() == DType::F16) {
        kernel(output.data_mut<Half>().data());
        return output;
      }
    }
    if (data.dtype() == DType::F64) {
      kernel(output.data_mut<double>().data());
    } else {
      kernel(output.data_mut<float>().data());
    }
    return output;
  }

  Tensor data;     ///< the input, contiguous
  Tensor regions;  ///< the [K, 5] rows, contiguous
  std::int64_t batch = 0, channels = 0, height = 0, width = 0, num_rois = 0;
  std::int64_t pooled_height = 0, pooled_width = 0;
  double spatial_scale = 1.0;
};

/// `value` (a scaled coordinate, finite) rounded half away from zero, as
/// torchvision's round() then conversion to int; refuses values beyond
/// int's range (torchvision's conversion is undefined there).
inline int rounded_pixel(const char* op, double value) {
  const double rounded = std::round(value);
  if (!(std::fabs(rounded) < 1e9)) refuse(op, "a box coordinate is too large for the pixel grid");
  return static_cast<int>(rounded);
}

}  // namespace fp::vision::ops::detail
