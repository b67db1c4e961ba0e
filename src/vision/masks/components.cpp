// scikit-image's measure.label (its 2-D connected components: pixels of one
// value joined through the chosen neighbours, numbered in scan order),
// regionprops' area and bbox, and morphology.remove_small_objects.
#include "flash_powder/vision/masks/components.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "base/text.h"
#include "flash_powder/base/error.h"
#include "flash_powder/core/factory.h"
#include "vision/masks/refuse.h"

namespace fp::vision::masks {
namespace {

using detail::refuse;

/// `image` on the CPU, contiguous: what the scans read.
Tensor cpu_contiguous(TensorView image) {
  return image.device().is_cpu() ? image.contiguous() : image.cpu().contiguous();
}

/// The root of `pixel`'s tree, halving the path on the way (union-find).
std::int64_t find_root(std::vector<std::int64_t>& parent, std::int64_t pixel) {
  while (parent[pixel] != pixel) {
    parent[pixel] = parent[parent[pixel]];
    pixel = parent[pixel];
  }
  return pixel;
}

/// Joins the trees of `a` and `b` under the smaller root.
void join(std::vector<std::int64_t>& parent, std::int64_t a, std::int64_t b) {
  a = find_root(parent, a);
  b = find_root(parent, b);
  if (a < b)
    parent[b] = a;
  else if (b < a)
    parent[a] = b;
}

/// The labels of the [height, width] `pixels` in row-major order.
template <class T>
Labels label_pixels(std::span<const T> pixels, std::int64_t height, std::int64_t width,
                    Connectivity connectivity, Device device) {
  const std::int64_t size = height * width;
  std::vector<std::int64_t> parent(static_cast<std::size_t>(size));
  const bool corners = connectivity == Connectivity::EdgesAndCorners;
  const auto background = [&](std::int64_t p) { return pixels[p] == T{}; };
  // One pass: each foreground pixel joins its earlier neighbours of its value.
  for (std::int64_t y = 0; y < height; ++y) {
    for (std::int64_t x = 0; x < width; ++x) {
      const std::int64_t p = y * width + x;
      parent[p] = p;
      if (background(p)) continue;
      const auto touch = [&](std::int64_t q) {
        if (pixels[q] == pixels[p]) join(parent, p, q);
      };
      if (x > 0) touch(p - 1);
      if (y > 0) {
        touch(p - width);
        if (corners && x > 0) touch(p - width - 1);
        if (corners && x + 1 < width) touch(p - width + 1);
      }
    }
  }
  // The second pass numbers the roots in the order the scan meets them.
  Tensor labels = zeros({height, width}, DType::I64);
  const std::span<std::int64_t> out = labels.data_mut<std::int64_t>();
  std::vector<std::int64_t> number(static_cast<std::size_t>(size), 0);
  std::int64_t count = 0;
  for (std::int64_t p = 0; p < size; ++p) {
    if (background(p)) continue;
    std::int64_t& root_number = number[find_root(parent, p)];
    if (root_number == 0) root_number = ++count;
    out[p] = root_number;
  }
  return {device.is_cpu() ? std::move(labels) : labels.to(device), count};
}

/// fp::Error unless `tensor` is [H, W]; its height and width.
std::pair<std::int64_t, std::int64_t> checked_plane(TensorView tensor, const char* function,
                                                    const char* what) {
  if (tensor.dim() != 2)
    refuse(function, std::string("expected ") + what + " of [H, W], got " +
                         fp::detail::torch_size(tensor.sizes()));
  return {tensor.size(0), tensor.size(1)};
}

}  // namespace

Labels label(TensorView image, Connectivity connectivity) {
  const auto [height, width] = checked_plane(image, "label", "an image");
  const Tensor pixels = cpu_contiguous(image);
  switch (image.dtype()) {
    case DType::Bool:
      return label_pixels(pixels.data<bool>(), height, width, connectivity, image.device());
    case DType::U8:
      return label_pixels(pixels.data<std::uint8_t>(), height, width, connectivity, image.device());
    case DType::I8:
      return label_pixels(pixels.data<std::int8_t>(), height, width, connectivity, image.device());
    case DType::I16:
      return label_pixels(pixels.data<std::int16_t>(), height, width, connectivity, image.device());
    case DType::I32:
      return label_pixels(pixels.data<std::int32_t>(), height, width, connectivity, image.device());
    case DType::I64:
      return label_pixels(pixels.data<std::int64_t>(), height, width, connectivity, image.device());
    default:
      refuse("label", "expected a bool or integer image, got " + std::string(name(image.dtype())));
  }
}

ComponentStats component_stats(const Labels& labels) {
  const auto [height, width] = checked_plane(labels.labels, "component_stats", "labels");
  if (labels.labels.dtype() != DType::I64)
    refuse("component_stats",
           "expected int64 labels, got " + std::string(name(labels.labels.dtype())));
  if (labels.count < 0) refuse("component_stats", "a negative count of components");
  const Tensor pixels = cpu_contiguous(labels.labels);
  const std::span<const std::int64_t> values = pixels.data<std::int64_t>();
  const auto count = static_cast<std::size_t>(labels.count);
  std::vector<std::int64_t> areas(count, 0);
  constexpr std::int64_t kFar = std::numeric_limits<std::int64_t>::max();
  std::vector<std::int64_t> x1(count, kFar), y1(count, kFar), x2(count, -1), y2(count, -1);
  for (std::int64_t y = 0; y < height; ++y) {
    for (std::int64_t x = 0; x < width; ++x) {
      const std::int64_t value = values[y * width + x];
      if (value == 0) continue;
      if (value < 0 || value > labels.count)
        refuse("component_stats",
               "label " + std::to_string(value) + " outside 0.." + std::to_string(labels.count));
      const auto i = static_cast<std::size_t>(value - 1);
      ++areas[i];
      x1[i] = std::min(x1[i], x);
      y1[i] = std::min(y1[i], y);
      x2[i] = std::max(x2[i], x);
      y2[i] = std::max(y2[i], y);
    }
  }
  Tensor area_tensor = empty({labels.count}, DType::I64);
  Tensor boxes = zeros({labels.count, 4}, DType::F32);
  const std::span<std::int64_t> area_out = area_tensor.data_mut<std::int64_t>();
  const std::span<float> box_out = boxes.data_mut<float>();
  for (std::size_t i = 0; i < count; ++i) {
    area_out[i] = areas[i];
    if (areas[i] == 0) continue;  // a label no pixel has: an all-zero box, as masks_to_boxes
    box_out[4 * i] = static_cast<float>(x1[i]);
    box_out[4 * i + 1] = static_cast<float>(y1[i]);
    box_out[4 * i + 2] = static_cast<float>(x2[i]);
    box_out[4 * i + 3] = static_cast<float>(y2[i]);
  }
  const Device device = labels.labels.device();
  if (device.is_cpu()) return {std::move(area_tensor), std::move(boxes)};
  return {area_tensor.to(device), boxes.to(device)};
}

Tensor remove_small_objects(TensorView mask, std::int64_t max_size, Connectivity connectivity) {
  checked_plane(mask, "remove_small_objects", "a mask");
  if (mask.dtype() != DType::Bool)
    refuse("remove_small_objects",
           "expected a bool mask, got " + std::string(name(mask.dtype())) +
               " (an integer image holds labels in scikit-image: pass `mask != 0`)");
  if (max_size < 0)
    refuse("remove_small_objects", "max_size must be 0 or more, got " + std::to_string(max_size));
  const Labels labels = label(cpu_contiguous(mask), connectivity);
  const Tensor areas = component_stats(labels).areas;
  const std::span<const std::int64_t> area = areas.data<std::int64_t>();
  const std::span<const std::int64_t> values = labels.labels.data<std::int64_t>();
  Tensor kept = zeros(mask.sizes(), DType::Bool);
  const std::span<bool> out = kept.data_mut<bool>();
  for (std::size_t p = 0; p < values.size(); ++p)
    out[p] = values[p] != 0 && area[static_cast<std::size_t>(values[p] - 1)] > max_size;
  return mask.device().is_cpu() ? kept : kept.to(mask.device());
}

}  // namespace fp::vision::masks
