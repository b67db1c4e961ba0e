// torchvision's CPU RoIAlign kernel (torchvision/csrc/ops/cpu/
// roi_align_kernel.cpp) in C++ over the tensors' data, in its arithmetic
// order, so that results are bit-identical.
//
// Why C++ and not ATen ops: the same result from ATen would need a gather of
// four neighbours per sample and a reduction whose summation order differs
// from torchvision's (so bits differ), and it would be slower. As in
// torchvision, the sample positions and weights of one region are computed
// once and shared by its channels.
#include "flash_powder/vision/ops/roi_align.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "bilinear.h"
#include "flash_powder/core/factory.h"
#include "half_arithmetic.h"
#include "roi_arguments.h"

namespace fp::vision::ops {
namespace {

using detail::Bilinear;

/// The bins of `C` consecutive channel planes of one region from its
/// samples (`per_bin` per bin, in order): each bin's sum of w1 * v1 + w2 * v2
/// + w3 * v3 + w4 * v4 over its samples, divided by `count`.
template <class T, std::int64_t C, class S>
void pool_channels(const S* planes, std::int64_t plane, const Bilinear<T>* samples,
                   std::int64_t bins, std::int64_t per_bin, T count, S* out) {
  for (std::int64_t bin = 0; bin < bins; ++bin) {
    T value[C] = {};
    const Bilinear<T>* sample = samples + bin * per_bin;
    for (std::int64_t s = 0; s < per_bin; ++s, ++sample) {
      for (std::int64_t k = 0; k < C; ++k) {
        const S* p = planes + k * plane;
        value[k] += sample->w1 * T(p[sample->pos1]) + sample->w2 * T(p[sample->pos2]) +
                    sample->w3 * T(p[sample->pos3]) + sample->w4 * T(p[sample->pos4]);
      }
    }
    for (std::int64_t k = 0; k < C; ++k) {
      value[k] /= count;
      out[k * bins + bin] = detail::stored<S>(value[k]);
    }
  }
}

/// S: the elements' type; T: the type torchvision computes in for them.
template <class S>
void roi_align_kernel(const detail::RoiArguments& args, const RoiAlignOptions& options, S* output) {
  using T = detail::Compute<S>;
  const S* input = args.data.data<S>().data();
  const S* rois = args.checked_regions<S>("roi_align");
  const auto spatial_scale = static_cast<T>(args.spatial_scale);
  const std::int64_t pooled_height = args.pooled_height;
  const std::int64_t pooled_width = args.pooled_width;
  const std::int64_t plane = args.height * args.width;
  std::vector<Bilinear<T>> samples;
  for (std::int64_t n = 0; n < args.num_rois; ++n) {
    const S* roi = rois + 5 * n;
    const auto batch_index = static_cast<std::int64_t>(T(roi[0]));
    const T offset = options.aligned ? static_cast<T>(0.5) : static_cast<T>(0.0);
    const T roi_start_w = T(roi[1]) * spatial_scale - offset;
    const T roi_start_h = T(roi[2]) * spatial_scale - offset;
    const T roi_end_w = T(roi[3]) * spatial_scale - offset;
    const T roi_end_h = T(roi[4]) * spatial_scale - offset;
    T roi_width = roi_end_w - roi_start_w;
    T roi_height = roi_end_h - roi_start_h;
    if (!options.aligned) {  // malformed regions become 1 x 1
      roi_width = std::max(roi_width, static_cast<T>(1.));
      roi_height = std::max(roi_height, static_cast<T>(1.));
    }
    const T bin_size_h = roi_height / static_cast<T>(pooled_height);
    const T bin_size_w = roi_width / static_cast<T>(pooled_width);
    const int grid_h =
        options.sampling_ratio > 0
            ? static_cast<int>(options.sampling_ratio)
            : static_cast<int>(std::ceil(roi_height / static_cast<T>(pooled_height)));
    const int grid_w = options.sampling_ratio > 0
                           ? static_cast<int>(options.sampling_ratio)
                           : static_cast<int>(std::ceil(roi_width / static_cast<T>(pooled_width)));
    if ((grid_h < 0 && grid_w > 0) || (grid_h > 0 && grid_w < 0)) {
      // torchvision fails here too (a negative std::vector size).
      detail::refuse("roi_align",
                     "box " + std::to_string(n) +
                         " is inverted along one side only, which leaves no sampling grid "
                         "with aligned=true and an adaptive sampling_ratio");
    }
    const auto count = static_cast<T>(std::max(grid_h * grid_w, 1));

    samples.clear();
    for (std::int64_t ph = 0; ph < pooled_height; ++ph) {
      for (std::int64_t pw = 0; pw < pooled_width; ++pw) {
        for (int iy = 0; iy < grid_h; ++iy) {
          const T y =
              roi_start_h + static_cast<T>(ph) * bin_size_h +
              static_cast<T>(static_cast<float>(iy) + .5f) * bin_size_h / static_cast<T>(grid_h);
          for (int ix = 0; ix < grid_w; ++ix) {
            const T x =
                roi_start_w + static_cast<T>(pw) * bin_size_w +
                static_cast<T>(static_cast<float>(ix) + .5f) * bin_size_w / static_cast<T>(grid_w);
            // Outside the map: zero weights on pixel 0 (as torchvision, so
            // that a NaN or infinity there still reaches the output).
            samples.push_back(
                detail::bilinear(args.height, args.width, y, x).value_or(Bilinear<T>{}));
          }
        }
      }
    }

    const std::int64_t bins = pooled_height * pooled_width;
    // Both sides inverted: no samples, as torchvision's loops run none.
    const auto per_bin = static_cast<std::int64_t>(std::max(grid_h, 0)) * std::max(grid_w, 0);
    const S* image = input + batch_index * args.channels * plane;
    S* out = output + n * args.channels * bins;
    std::int64_t c = 0;
    for (; c + detail::kChannelsAtOnce <= args.channels; c += detail::kChannelsAtOnce)
      pool_channels<T, detail::kChannelsAtOnce>(image + c * plane, plane, samples.data(), bins,
                                                per_bin, count, out + c * bins);
    for (; c < args.channels; ++c)
      pool_channels<T, 1>(image + c * plane, plane, samples.data(), bins, per_bin, count,
                          out + c * bins);
  }
}

}  // namespace

Tensor roi_align(TensorView input, TensorView rois, PooledSize output_size,
                 const RoiAlignOptions& options) {
  const detail::RoiArguments args("roi_align", input, rois, output_size, options.spatial_scale);
  args.require_float("roi_align", true);
  return args.pool<true>(args.channels,
                         [&](auto* output) { roi_align_kernel(args, options, output); });
}

Tensor roi_align(TensorView input, const std::vector<TensorView>& boxes, PooledSize output_size,
                 const RoiAlignOptions& options) {
  return roi_align(input, convert_boxes_to_roi_format(boxes), output_size, options);
}

}  // namespace fp::vision::ops
