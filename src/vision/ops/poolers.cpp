// torchvision/ops/poolers.py: MultiScaleRoIAlign, LevelMapper and the scale
// inference, op for op (the level arithmetic through libtorch's kernels, as
// in Python; the per-level pooling through fp::vision::ops::roi_align).
#include "flash_powder/vision/ops/poolers.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "box_checks.h"
#include "flash_powder/aten/aten.h"
#include "flash_powder/core/conversion.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/vision/ops/boxes.h"
#include "flash_powder/vision/ops/roi_align.h"

namespace fp::vision::ops {
namespace {

/// torch.log2 of a 0-dim float32 tensor holding `value`, as a double.
double log2_in_float32(double value) {
  return aten::log2(fp::tensor(static_cast<float>(value))).item<double>();
}

/// torchvision's _infer_scale: 2 ** round(log2(map size / image size)), from the height.
double infer_scale(TensorView feature, std::int64_t image_height) {
  const double approx_scale =
      static_cast<double>(feature.size(-2)) / static_cast<double>(image_height);
  const double exponent =
      aten::round(aten::log2(fp::tensor(static_cast<float>(approx_scale)))).item<double>();
  return std::pow(2.0, exponent);
}

/// Row k of `rows` ([k, ...]) to row index[k] of `target` (contiguous).
template <class T>
void scatter_rows_as(Tensor& target, const Tensor& rows, const std::vector<std::int64_t>& index) {
  const auto in = rows.data<T>();
  auto out = target.data_mut<T>();
  const std::size_t row = index.empty() ? 0 : in.size() / index.size();
  for (std::size_t k = 0; k < index.size(); ++k)
    std::copy_n(in.data() + k * row, row, out.data() + static_cast<std::size_t>(index[k]) * row);
}

/// torchvision's `result[idx_in_level] = result_idx_in_level.to(result.dtype)`.
void scatter_rows(Tensor& target, TensorView source, const std::vector<std::int64_t>& index) {
  const Tensor rows = source.to(target.dtype()).contiguous();
  if (target.dtype() == DType::F64) {
    scatter_rows_as<double>(target, rows, index);
  } else {
    scatter_rows_as<float>(target, rows, index);
  }
}

}  // namespace

Tensor LevelMapper::operator()(const std::vector<TensorView>& boxlists) const {
  std::vector<Tensor> areas;
  areas.reserve(boxlists.size());
  for (const TensorView& boxes : boxlists)
    areas.push_back(box_area(boxes));
  const Tensor s = aten::sqrt(aten::cat(areas, 0));
  const Tensor eps_tensor = fp::full({}, eps, s.dtype());
  const Tensor target = aten::floor(canonical_level + aten::log2(s / canonical_scale) + eps_tensor);
  const Tensor clamped = target.clamp(k_min, k_max);
  return clamped.to(DType::I64) - k_min;
}

MultiScaleRoIAlign::MultiScaleRoIAlign(std::vector<std::string> featmap_names,
                                       PooledSize output_size, std::int64_t sampling_ratio,
                                       const MultiScaleRoIAlignOptions& options)
    : featmap_names(std::move(featmap_names)),
      output_size(output_size),
      sampling_ratio(sampling_ratio),
      options(options) {}

void MultiScaleRoIAlign::visit(nn::Visitor& /*visitor*/) {}

Tensor MultiScaleRoIAlign::forward(
    const FeatureMaps& x, const std::vector<TensorView>& boxes,
    const std::vector<std::pair<std::int64_t, std::int64_t>>& image_shapes) const {
  std::vector<TensorView> maps;
  for (const auto& [name, map] : x) {
    if (std::find(featmap_names.begin(), featmap_names.end(), name) != featmap_names.end())
      maps.emplace_back(map);
  }
  if (maps.empty())
    detail::refuse("MultiScaleRoIAlign", "none of featmap_names is among the feature maps");
  if (image_shapes.empty()) detail::refuse("MultiScaleRoIAlign", "images list should not be empty");
  std::int64_t max_height = 0;
  for (const auto& shape : image_shapes)
    max_height = std::max(max_height, shape.first);
  std::vector<double> scales;
  scales.reserve(maps.size());
  for (const TensorView& map : maps)
    scales.push_back(infer_scale(map, max_height));
  const Tensor rois = convert_boxes_to_roi_format(boxes);
  const RoiAlignOptions first{.spatial_scale = scales[0], .sampling_ratio = sampling_ratio};
  if (maps.size() == 1) return roi_align(maps[0], rois, output_size, first);

  const LevelMapper mapper{.k_min = static_cast<std::int64_t>(-log2_in_float32(scales.front())),
                           .k_max = static_cast<std::int64_t>(-log2_in_float32(scales.back())),
                           .canonical_scale = options.canonical_scale,
                           .canonical_level = options.canonical_level};
  const Tensor levels = mapper(boxes).contiguous();
  const auto level_of = levels.data<std::int64_t>();
  Tensor result = fp::zeros({rois.size(0), maps[0].size(1), output_size.height, output_size.width},
                            maps[0].dtype());
  for (std::size_t level = 0; level < maps.size(); ++level) {
    std::vector<std::int64_t> index;
    for (std::size_t k = 0; k < level_of.size(); ++k)
      if (level_of[k] == static_cast<std::int64_t>(level))
        index.push_back(static_cast<std::int64_t>(k));
    const Tensor level_rois = aten::index_select(rois, 0, fp::tensor(index));
    const Tensor pooled =
        roi_align(maps[level], level_rois, output_size,
                  {.spatial_scale = scales[level], .sampling_ratio = sampling_ratio});
    scatter_rows(result, pooled, index);
  }
  return result;
}

}  // namespace fp::vision::ops
