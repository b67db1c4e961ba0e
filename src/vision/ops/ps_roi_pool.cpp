// torchvision's CPU position-sensitive RoIPool kernel (torchvision/csrc/ops/
// cpu/ps_roi_pool_kernel.cpp) in C++ over the tensors' data, in its
// arithmetic order. Why C++: as roi_pool's (src/vision/ops/roi_pool.cpp).
#include "flash_powder/vision/ops/ps_roi_pool.h"

#include <algorithm>
#include <cmath>

#include "flash_powder/core/factory.h"
#include "roi_arguments.h"

namespace fp::vision::ops {
namespace {

template <class T>
void ps_roi_pool_kernel(const detail::RoiArguments& args, T* output) {
  const T* input = args.data.data<T>().data();
  const T* rois = args.checked_regions<T>("ps_roi_pool");
  const auto scale = static_cast<T>(args.spatial_scale);
  const auto height = static_cast<int>(args.height);
  const auto width = static_cast<int>(args.width);
  const std::int64_t channels_out = args.channels / (args.pooled_height * args.pooled_width);
  for (std::int64_t n = 0; n < args.num_rois; ++n) {
    const T* roi = rois + 5 * n;
    const auto batch_index = static_cast<std::int64_t>(roi[0]);
    const int start_w = detail::rounded_pixel("ps_roi_pool", roi[1] * scale);
    const int start_h = detail::rounded_pixel("ps_roi_pool", roi[2] * scale);
    const int end_w = detail::rounded_pixel("ps_roi_pool", roi[3] * scale);
    const int end_h = detail::rounded_pixel("ps_roi_pool", roi[4] * scale);
    const int roi_width = std::max(end_w - start_w, 1);  // too small regions become 1 x 1
    const int roi_height = std::max(end_h - start_h, 1);
    const T bin_size_h = static_cast<T>(roi_height) / static_cast<T>(args.pooled_height);
    const T bin_size_w = static_cast<T>(roi_width) / static_cast<T>(args.pooled_width);
    std::int64_t c_in = 0;
    T* out = output + n * channels_out * args.pooled_height * args.pooled_width;
    for (std::int64_t c_out = 0; c_out < channels_out; ++c_out) {
      for (std::int64_t ph = 0; ph < args.pooled_height; ++ph) {
        for (std::int64_t pw = 0; pw < args.pooled_width; ++pw, ++c_in, ++out) {
          int h0 = static_cast<int>(std::floor(static_cast<T>(ph) * bin_size_h));
          int w0 = static_cast<int>(std::floor(static_cast<T>(pw) * bin_size_w));
          int h1 = static_cast<int>(std::ceil(static_cast<T>(ph + 1) * bin_size_h));
          int w1 = static_cast<int>(std::ceil(static_cast<T>(pw + 1) * bin_size_w));
          // Clipped to the last row and column, not past them (torchvision's).
          h0 = std::min(std::max(h0 + start_h, 0), height - 1);
          h1 = std::min(std::max(h1 + start_h, 0), height - 1);
          w0 = std::min(std::max(w0 + start_w, 0), width - 1);
          w1 = std::min(std::max(w1 + start_w, 0), width - 1);
          const bool empty = h1 <= h0 || w1 <= w0;
          const T* plane = input + (batch_index * args.channels + c_in) * args.height * args.width;
          T sum = 0;
          for (int h = h0; h < h1; ++h) {
            for (int w = w0; w < w1; ++w)
              sum += plane[static_cast<std::int64_t>(h) * args.width + w];
          }
          const auto bin_area = static_cast<T>((h1 - h0) * (w1 - w0));
          *out = empty ? static_cast<T>(0) : sum / bin_area;
        }
      }
    }
  }
}

}  // namespace

Tensor ps_roi_pool(TensorView input, TensorView rois, PooledSize output_size,
                   double spatial_scale) {
  const detail::RoiArguments args("ps_roi_pool", input, rois, output_size, spatial_scale);
  args.require_float("ps_roi_pool");
  return args.pool(args.position_sensitive_channels("ps_roi_pool"),
                   [&](auto* output) { ps_roi_pool_kernel(args, output); });
}

Tensor ps_roi_pool(TensorView input, const std::vector<TensorView>& boxes, PooledSize output_size,
                   double spatial_scale) {
  return ps_roi_pool(input, convert_boxes_to_roi_format(boxes), output_size, spatial_scale);
}

}  // namespace fp::vision::ops
