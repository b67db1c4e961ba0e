// torchvision's CPU RoIPool kernel (torchvision/csrc/ops/cpu/
// roi_pool_kernel.cpp) in C++ over the tensors' data.
//
// Why C++ and not ATen ops: every region has bins of its own sizes, which
// no ATen pooling op takes. The bins of a region are computed once and each
// channel's plane is then read whole (torchvision walks the bins outside
// the channels); the values and comparisons are torchvision's.
#include "flash_powder/vision/ops/roi_pool.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "flash_powder/core/factory.h"
#include "roi_arguments.h"

namespace fp::vision::ops {
namespace {

/// A bin's rows [h0, h1) and columns [w0, w1), clipped to the map.
struct Bin {
  int h0, h1, w0, w1;
};

/// The maxima of `C` consecutive channel planes (pooled together, see
/// detail::kChannelsAtOnce; each output scans its bin alone, in
/// torchvision's order) over each of `bins`; an
/// empty bin gives 0, and the scan starts from -FLT_MAX (for float64 too),
/// as torchvision's.
template <class T, std::int64_t C>
void max_pool_channels(const T* planes, std::int64_t plane, std::int64_t width,
                       const std::vector<Bin>& bins, T* out) {
  const auto count = static_cast<std::int64_t>(bins.size());
  for (std::int64_t k = 0; k < count; ++k) {
    const Bin& b = bins[static_cast<std::size_t>(k)];
    const bool empty = b.h1 <= b.h0 || b.w1 <= b.w0;
    T max_value[C];
    for (std::int64_t i = 0; i < C; ++i)
      max_value[i] = empty ? T(0) : static_cast<T>(-std::numeric_limits<float>::max());
    for (int h = b.h0; h < b.h1; ++h) {
      for (int w = b.w0; w < b.w1; ++w) {
        for (std::int64_t i = 0; i < C; ++i) {
          const T value = planes[i * plane + static_cast<std::int64_t>(h) * width + w];
          if (value > max_value[i]) max_value[i] = value;
        }
      }
    }
    for (std::int64_t i = 0; i < C; ++i)
      out[i * count + k] = max_value[i];
  }
}

template <class T>
void roi_pool_kernel(const detail::RoiArguments& args, T* output) {
  const T* input = args.data.data<T>().data();
  const T* rois = args.checked_regions<T>("roi_pool");
  const auto scale = static_cast<T>(args.spatial_scale);
  const auto height = static_cast<int>(args.height);
  const auto width = static_cast<int>(args.width);
  const std::int64_t bins = args.pooled_height * args.pooled_width;
  std::vector<Bin> bin(static_cast<std::size_t>(bins));
  for (std::int64_t n = 0; n < args.num_rois; ++n) {
    const T* roi = rois + 5 * n;
    const auto batch_index = static_cast<std::int64_t>(roi[0]);
    const int start_w = detail::rounded_pixel("roi_pool", roi[1] * scale);
    const int start_h = detail::rounded_pixel("roi_pool", roi[2] * scale);
    const int end_w = detail::rounded_pixel("roi_pool", roi[3] * scale);
    const int end_h = detail::rounded_pixel("roi_pool", roi[4] * scale);
    const int roi_width = std::max(end_w - start_w + 1, 1);  // malformed regions become 1 x 1
    const int roi_height = std::max(end_h - start_h + 1, 1);
    const T bin_size_h = static_cast<T>(roi_height) / static_cast<T>(args.pooled_height);
    const T bin_size_w = static_cast<T>(roi_width) / static_cast<T>(args.pooled_width);
    for (std::int64_t ph = 0; ph < args.pooled_height; ++ph) {
      for (std::int64_t pw = 0; pw < args.pooled_width; ++pw) {
        const auto h0 = static_cast<int>(std::floor(static_cast<T>(ph) * bin_size_h));
        const auto w0 = static_cast<int>(std::floor(static_cast<T>(pw) * bin_size_w));
        const auto h1 = static_cast<int>(std::ceil(static_cast<T>(ph + 1) * bin_size_h));
        const auto w1 = static_cast<int>(std::ceil(static_cast<T>(pw + 1) * bin_size_w));
        bin[static_cast<std::size_t>(ph * args.pooled_width + pw)] = {
            std::min(std::max(h0 + start_h, 0), height),
            std::min(std::max(h1 + start_h, 0), height), std::min(std::max(w0 + start_w, 0), width),
            std::min(std::max(w1 + start_w, 0), width)};
      }
    }
    const std::int64_t plane = args.height * args.width;
    const T* image = input + batch_index * args.channels * plane;
    T* out = output + n * args.channels * bins;
    std::int64_t c = 0;
    for (; c + detail::kChannelsAtOnce <= args.channels; c += detail::kChannelsAtOnce)
      max_pool_channels<T, detail::kChannelsAtOnce>(image + c * plane, plane, args.width, bin,
                                                    out + c * bins);
    for (; c < args.channels; ++c)
      max_pool_channels<T, 1>(image + c * plane, plane, args.width, bin, out + c * bins);
  }
}

}  // namespace

Tensor roi_pool(TensorView input, TensorView rois, PooledSize output_size, double spatial_scale) {
  const detail::RoiArguments args("roi_pool", input, rois, output_size, spatial_scale);
  args.require_float("roi_pool");
  return args.pool(args.channels, [&](auto* output) { roi_pool_kernel(args, output); });
}

Tensor roi_pool(TensorView input, const std::vector<TensorView>& boxes, PooledSize output_size,
                double spatial_scale) {
  return roi_pool(input, convert_boxes_to_roi_format(boxes), output_size, spatial_scale);
}

}  // namespace fp::vision::ops
