// torchvision/models/detection/anchor_utils.py's DefaultBoxGenerator, op for
// op: the scales and width-height pairs in doubles (Python's floats) made
// float32 once, the centres and corners in float32 tensor ops as Python's.
#include "flash_powder/vision/models/detection/default_box_generator.h"

#include <cmath>
#include <string>
#include <utility>

#include "flash_powder/base/error.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/functions.h"
#include "flash_powder/core/operators.h"

namespace fp::vision::models::detection {
namespace {

[[noreturn]] void refuse_default_boxes(const std::string& message) {
  throw Error(ErrorCode::BadArgument,
              "fp::vision::models::detection::DefaultBoxGenerator: " + message);
}

/// torchvision's scale estimation: evenly from min_ratio to max_ratio, then 1.
std::vector<double> estimated_scales(std::size_t num_outputs, double min_ratio, double max_ratio) {
  if (num_outputs == 1) return {min_ratio, max_ratio};
  const double range_ratio = max_ratio - min_ratio;
  std::vector<double> scales;
  for (std::size_t k = 0; k < num_outputs; ++k)
    scales.push_back(min_ratio + range_ratio * static_cast<double>(k) /
                                     (static_cast<double>(num_outputs) - 1.0));
  scales.push_back(1.0);
  return scales;
}

/// torchvision's _generate_wh_pairs for map k: [A, 2] float32.
Tensor wh_pairs_of(const std::vector<double>& scales, const std::vector<double>& ratios,
                   std::size_t k) {
  const double s_k = scales[k];
  const double s_prime_k = std::sqrt(scales[k] * scales[k + 1]);
  std::vector<double> pairs{s_k, s_k, s_prime_k, s_prime_k};
  for (const double ratio : ratios) {
    const double sq_ar = std::sqrt(ratio);
    const double w = scales[k] * sq_ar;
    const double h = scales[k] / sq_ar;
    pairs.insert(pairs.end(), {w, h, h, w});
  }
  return fp::tensor(pairs).to(DType::F32).reshape({-1, 2});
}

}  // namespace

DefaultBoxGenerator::DefaultBoxGenerator(std::vector<std::vector<double>> aspect_ratios,
                                         const DefaultBoxGeneratorOptions& options)
    : aspect_ratios(std::move(aspect_ratios)), steps(options.steps), clip(options.clip) {
  const std::size_t num_outputs = this->aspect_ratios.size();
  if (num_outputs == 0) refuse_default_boxes("aspect_ratios should hold one list per map");
  if (steps && steps->size() != num_outputs)
    refuse_default_boxes("aspect_ratios and steps should have the same length");
  for (const auto& ratios : this->aspect_ratios)
    for (const double ratio : ratios)
      if (!(ratio > 0.0))
        refuse_default_boxes("aspect ratios should be positive, got " + std::to_string(ratio));
  if (steps)
    for (const std::int64_t step : *steps)
      if (step < 1) refuse_default_boxes("steps should be positive, got " + std::to_string(step));
  scales =
      options.scales.value_or(estimated_scales(num_outputs, options.min_ratio, options.max_ratio));
  if (scales.size() < num_outputs + 1)
    refuse_default_boxes("scales should hold one value per map and one more, got " +
                         std::to_string(scales.size()) + " for " + std::to_string(num_outputs) +
                         " maps");
  for (std::size_t k = 0; k < num_outputs; ++k)
    wh_pairs.push_back(wh_pairs_of(scales, this->aspect_ratios[k], k));
}

void DefaultBoxGenerator::visit(nn::Visitor& /*visitor*/) {}

std::vector<std::int64_t> DefaultBoxGenerator::num_anchors_per_location() const {
  std::vector<std::int64_t> counts;
  counts.reserve(aspect_ratios.size());
  for (const auto& ratios : aspect_ratios)
    counts.push_back(2 + 2 * static_cast<std::int64_t>(ratios.size()));
  return counts;
}

Tensor DefaultBoxGenerator::grid_default_boxes(const std::vector<TensorView>& feature_maps,
                                               std::int64_t height, std::int64_t width) const {
  const DType dtype = feature_maps.front().dtype();
  std::vector<Tensor> default_boxes;
  for (std::size_t k = 0; k < feature_maps.size(); ++k) {
    const std::int64_t map_height = feature_maps[k].size(-2);
    const std::int64_t map_width = feature_maps[k].size(-1);
    // Python's image_size / step is a float; the map's own size an int.
    const Scalar x_f_k = steps
                             ? Scalar(static_cast<double>(width) / static_cast<double>((*steps)[k]))
                             : Scalar(map_width);
    const Scalar y_f_k =
        steps ? Scalar(static_cast<double>(height) / static_cast<double>((*steps)[k]))
              : Scalar(map_height);
    const Tensor shifts_x = ((fp::arange(map_width) + 0.5) / x_f_k).to(dtype);
    const Tensor shifts_y = ((fp::arange(map_height) + 0.5) / y_f_k).to(dtype);
    const std::int64_t pairs = wh_pairs[k].size(0);
    // stack((shift_x, shift_y) * A, -1).reshape(-1, 2): each centre A times, position-major.
    const Tensor shift_x =
        shifts_x.view({1, -1, 1}).expand({map_height, map_width, pairs}).to_owned();
    const Tensor shift_y =
        shifts_y.view({-1, 1, 1}).expand({map_height, map_width, pairs}).to_owned();
    const Tensor shifts = fp::stack({shift_x, shift_y}, -1).reshape({-1, 2});
    const Tensor wh = clip ? wh_pairs[k].clamp(0, 1) : wh_pairs[k];
    const Tensor wh_repeated =
        wh.to(dtype).unsqueeze(0).expand({map_height * map_width, pairs, 2}).reshape({-1, 2});
    default_boxes.push_back(fp::cat({shifts, wh_repeated}, 1));
  }
  return fp::cat(default_boxes, 0);
}

std::vector<Tensor> DefaultBoxGenerator::forward(
    const ImageList& images, const std::vector<TensorView>& feature_maps) const {
  if (feature_maps.size() != aspect_ratios.size())
    refuse_default_boxes("expected " + std::to_string(aspect_ratios.size()) +
                         " feature maps, got " + std::to_string(feature_maps.size()));
  const std::int64_t height = images.tensors.size(-2);
  const std::int64_t width = images.tensors.size(-1);
  const Tensor boxes = grid_default_boxes(feature_maps, height, width);
  const Tensor x_y_size = fp::tensor(std::vector<std::int64_t>{width, height});
  const TensorView centres = boxes.i(fp::all, fp::slice(0, 2));
  const TensorView sizes = boxes.i(fp::all, fp::slice(2, fp::end));
  const Tensor corners =
      fp::cat({(centres - 0.5 * sizes) * x_y_size, (centres + 0.5 * sizes) * x_y_size}, -1);
  return std::vector<Tensor>(images.image_sizes.size(), corners);
}

}  // namespace fp::vision::models::detection
