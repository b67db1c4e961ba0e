// torchvision's CPU position-sensitive RoIAlign kernel (torchvision/csrc/
// ops/cpu/ps_roi_align_kernel.cpp) in C++ over the tensors' data, in its
// arithmetic order. Why C++: as roi_align's (src/vision/ops/roi_align.cpp).
#include "flash_powder/vision/ops/ps_roi_align.h"

#include <cmath>
#include <vector>

#include "bilinear.h"
#include "flash_powder/core/factory.h"
#include "half_arithmetic.h"
#include "roi_arguments.h"

namespace fp::vision::ops {
namespace {

/// torchvision's bilinear_interpolate: 0 outside the map.
template <class T, class S>
T sample(const S* plane, std::int64_t height, std::int64_t width, T y, T x) {
  const auto at = detail::bilinear(height, width, y, x);
  if (!at) return 0;
  return at->w1 * T(plane[at->pos1]) + at->w2 * T(plane[at->pos2]) + at->w3 * T(plane[at->pos3]) +
         at->w4 * T(plane[at->pos4]);
}

/// S: the elements' type; T: the type torchvision computes in for them.
template <class S>
void ps_roi_align_kernel(const detail::RoiArguments& args, std::int64_t sampling_ratio, S* output) {
  using T = detail::Compute<S>;
  const S* input = args.data.data<S>().data();
  const S* rois = args.checked_regions<S>("ps_roi_align");
  const auto scale = static_cast<T>(args.spatial_scale);
  const std::int64_t pooled_height = args.pooled_height;
  const std::int64_t pooled_width = args.pooled_width;
  const std::int64_t channels_out = args.channels / (pooled_height * pooled_width);
  const std::int64_t plane_size = args.height * args.width;
  for (std::int64_t n = 0; n < args.num_rois; ++n) {
    const S* roi = rois + 5 * n;
    const auto batch_index = static_cast<std::int64_t>(T(roi[0]));
    const T roi_start_w = T(roi[1]) * scale - static_cast<T>(0.5);
    const T roi_start_h = T(roi[2]) * scale - static_cast<T>(0.5);
    const T roi_end_w = T(roi[3]) * scale - static_cast<T>(0.5);
    const T roi_end_h = T(roi[4]) * scale - static_cast<T>(0.5);
    const T roi_width = roi_end_w - roi_start_w;
    const T roi_height = roi_end_h - roi_start_h;
    const T bin_size_h = roi_height / static_cast<T>(pooled_height);
    const T bin_size_w = roi_width / static_cast<T>(pooled_width);
    const int grid_h =
        sampling_ratio > 0
            ? static_cast<int>(sampling_ratio)
            : static_cast<int>(std::ceil(roi_height / static_cast<T>(pooled_height)));
    const int grid_w = sampling_ratio > 0
                           ? static_cast<int>(sampling_ratio)
                           : static_cast<int>(std::ceil(roi_width / static_cast<T>(pooled_width)));
    // Not at least 1 as in roi_align: an empty grid gives 0 / 0 there too.
    const auto count = static_cast<T>(grid_h * grid_w);
    std::int64_t c_in = 0;
    S* out = output + n * channels_out * pooled_height * pooled_width;
    for (std::int64_t c_out = 0; c_out < channels_out; ++c_out) {
      for (std::int64_t ph = 0; ph < pooled_height; ++ph) {
        for (std::int64_t pw = 0; pw < pooled_width; ++pw, ++c_in, ++out) {
          const T hstart = static_cast<T>(ph) * bin_size_h + roi_start_h;
          const T wstart = static_cast<T>(pw) * bin_size_w + roi_start_w;
          const S* plane = input + (batch_index * args.channels + c_in) * plane_size;
          T sum = 0;
          for (int iy = 0; iy < grid_h; ++iy) {
            const T y = hstart + static_cast<T>(static_cast<float>(iy) + .5f) * bin_size_h /
                                     static_cast<T>(grid_h);
            for (int ix = 0; ix < grid_w; ++ix) {
              const T x = wstart + static_cast<T>(static_cast<float>(ix) + .5f) * bin_size_w /
                                       static_cast<T>(grid_w);
              sum += sample(plane, args.height, args.width, y, x);
            }
          }
          sum /= count;
          *out = detail::stored<S>(sum);
        }
      }
    }
  }
}

}  // namespace

Tensor ps_roi_align(TensorView input, TensorView rois, PooledSize output_size, double spatial_scale,
                    std::int64_t sampling_ratio) {
  const detail::RoiArguments args("ps_roi_align", input, rois, output_size, spatial_scale);
  args.require_float("ps_roi_align", true);
  return args.pool<true>(args.position_sensitive_channels("ps_roi_align"),
                         [&](auto* output) { ps_roi_align_kernel(args, sampling_ratio, output); });
}

Tensor ps_roi_align(TensorView input, const std::vector<TensorView>& boxes, PooledSize output_size,
                    double spatial_scale, std::int64_t sampling_ratio) {
  return ps_roi_align(input, convert_boxes_to_roi_format(boxes), output_size, spatial_scale,
                      sampling_ratio);
}

}  // namespace fp::vision::ops
