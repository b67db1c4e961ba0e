// scikit-image's binary morphology (morphology/binary.py over
// scipy.ndimage's binary_dilation and binary_erosion) as convolutions that
// count, on each pixel, the footprint's pixels it meets.
#include "flash_powder/vision/masks/morphology.h"

#include <cstdint>
#include <span>
#include <string>

#include "base/text.h"
#include "flash_powder/aten/aten.h"
#include "flash_powder/base/error.h"
#include "flash_powder/core/factory.h"
#include "vision/masks/refuse.h"

namespace fp::vision::masks {
namespace {

using detail::refuse;

void check_radius(const char* function, std::int64_t radius) {
  if (radius < 0) refuse(function, "the radius must be 0 or more, got " + std::to_string(radius));
}

/// A bool [2r + 1, 2r + 1] true where `inside(x, y)` holds, x and y from -r to r.
template <class Inside>
Tensor centred_footprint(std::int64_t radius, Inside inside) {
  const std::int64_t side = 2 * radius + 1;
  Tensor footprint = zeros({side, side}, DType::Bool);
  const std::span<bool> cells = footprint.data_mut<bool>();
  for (std::int64_t y = -radius; y <= radius; ++y)
    for (std::int64_t x = -radius; x <= radius; ++x)
      cells[(y + radius) * side + x + radius] = inside(x, y);
  return footprint;
}

/// The footprint as a float32 [1, 1, h, w] convolution weight on `device`,
/// each side padded to an odd length at its end (scikit-image's pad_footprint).
Tensor footprint_weight(const char* function, const std::optional<TensorView>& footprint,
                        Device device) {
  const Tensor cross = diamond(1);
  const TensorView given = footprint ? *footprint : TensorView(cross);
  if (given.dim() != 2 || !is_integral(given.dtype(), true))
    refuse(function, "expected a footprint of [h, w], bool or integer, got a " +
                         fp::detail::torch_size(given.sizes()) + " " +
                         std::string(name(given.dtype())) + " tensor");
  const std::int64_t height = given.size(0);
  const std::int64_t width = given.size(1);
  if (height == 0 || width == 0) refuse(function, "the footprint is empty");
  Tensor weight = zeros({1, 1, height + 1 - height % 2, width + 1 - width % 2}, device);
  weight.i_mut(0, 0, fp::slice(0, height), fp::slice(0, width)).copy_(given.ne(0));
  return weight;
}

/// The masks as float32 [N, 1, H, W]; fp::Error unless bool [H, W] or [N, H, W].
Tensor mask_batch(const char* function, TensorView mask) {
  if (mask.dtype() != DType::Bool || (mask.dim() != 2 && mask.dim() != 3))
    refuse(function, "expected a bool mask of [H, W] or [N, H, W], got a " +
                         fp::detail::torch_size(mask.sizes()) + " " +
                         std::string(name(mask.dtype())) + " tensor");
  const std::int64_t count = mask.dim() == 3 ? mask.size(0) : 1;
  return mask.to(DType::F32).reshape({count, 1, mask.size(-2), mask.size(-1)});
}

/// How many of each pixel's footprint cells (cross-correlated, centred) are
/// set in `masks`, [N, 1, H, W]; outside the image counts as unset.
Tensor footprint_counts(TensorView masks, TensorView weight) {
  return aten::conv2d(masks, weight, std::nullopt, 1,
                      {(weight.size(2) - 1) / 2, (weight.size(3) - 1) / 2});
}

}  // namespace

Tensor disk(std::int64_t radius) {
  check_radius("disk", radius);
  return centred_footprint(
      radius, [&](std::int64_t x, std::int64_t y) { return x * x + y * y <= radius * radius; });
}

Tensor diamond(std::int64_t radius) {
  check_radius("diamond", radius);
  return centred_footprint(radius, [&](std::int64_t x, std::int64_t y) {
    return (x < 0 ? -x : x) + (y < 0 ? -y : y) <= radius;
  });
}

Tensor rectangle(std::int64_t height, std::int64_t width) {
  if (height <= 0 || width <= 0)
    refuse("rectangle", "expected positive sides, got " + std::to_string(height) + " x " +
                            std::to_string(width));
  return full({height, width}, true);
}

Tensor binary_dilation(TensorView mask, const std::optional<TensorView>& footprint) {
  const Tensor masks = mask_batch("binary_dilation", mask);
  const Tensor weight = footprint_weight("binary_dilation", footprint, mask.device());
  if (mask.numel() == 0) return mask.to(DType::Bool).clone();
  // scipy mirrors the footprint for a dilation: the flipped one, correlated.
  return footprint_counts(masks, aten::flip(weight, {2, 3})).gt(0.5).reshape(mask.sizes());
}

Tensor binary_erosion(TensorView mask, const std::optional<TensorView>& footprint) {
  const Tensor masks = mask_batch("binary_erosion", mask);
  const Tensor weight = footprint_weight("binary_erosion", footprint, mask.device());
  if (mask.numel() == 0) return mask.to(DType::Bool).clone();
  // Unset pixels under the footprint, the border set: none means eroded to true.
  return footprint_counts(masks.neg().add(1.0), weight).lt(0.5).reshape(mask.sizes());
}

Tensor binary_opening(TensorView mask, const std::optional<TensorView>& footprint) {
  return binary_dilation(binary_erosion(mask, footprint), footprint);
}

Tensor binary_closing(TensorView mask, const std::optional<TensorView>& footprint) {
  return binary_erosion(binary_dilation(mask, footprint), footprint);
}

}  // namespace fp::vision::masks
