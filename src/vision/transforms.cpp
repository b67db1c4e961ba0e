// torchvision.transforms.functional (v1, tensor paths) as ImageClassification
// and SemanticSegmentation use it.
#include "flash_powder/vision/transforms.h"
#include "base/text.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "flash_powder/aten/aten.h"
#include "flash_powder/base/error.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/functional/vision.h"

namespace fp::vision::transforms {
namespace {

[[noreturn]] void refuse(const std::string& function, const std::string& why) {
  throw Error(ErrorCode::BadArgument, "fp::vision::transforms::" + function + ": " + why);
}

void check_image(const char* function, TensorView image, std::int64_t min_dim) {
  if (!image.is_defined()) refuse(function, "the image is an undefined tensor");
  if (image.dim() < min_dim)
    refuse(function, "expected an image of at least " + std::to_string(min_dim) +
                         " dimensions ([..., H, W]), got " + std::to_string(image.dim()));
}

std::string shape_of(TensorView image) {
  return fp::detail::list_text(image.sizes());
}

bool is_integer_image(TensorView image) {
  return image.dtype() == DType::U8 || image.dtype() == DType::U16;
}

/// Python's `int(round(x / 2.0))` for the crop offset (round half to even).
std::int64_t centered_offset(std::int64_t size, std::int64_t crop) {
  return static_cast<std::int64_t>(std::nearbyint(static_cast<double>(size - crop) / 2.0));
}

}  // namespace

std::array<std::int64_t, 2> resized_size(std::int64_t height, std::int64_t width,
                                         std::int64_t size) {
  if (height <= 0 || width <= 0 || size <= 0)
    refuse("resized_size", "sizes must be positive, got " + std::to_string(height) + "x" +
                               std::to_string(width) + " to " + std::to_string(size));
  const bool tall = width <= height;
  const std::int64_t shorter = tall ? width : height;
  const std::int64_t longer = tall ? height : width;
  // Python: int(size * long / short), a float division truncated.
  const auto new_long =
      static_cast<std::int64_t>(static_cast<double>(size * longer) / static_cast<double>(shorter));
  return tall ? std::array{new_long, size} : std::array{size, new_long};
}

Tensor resize_shorter_side(TensorView image, std::int64_t size,
                           const image::ResizeOptions& options) {
  check_image("resize_shorter_side", image, 2);
  const auto [height, width] = resized_size(image.size(-2), image.size(-1), size);
  if (height == image.size(-2) && width == image.size(-1)) return image.to_owned();
  if (!is_integer_image(image)) return image::resize(image, height, width, options);
  Tensor resized = image::resize(image.to(DType::F32), height, width, options);
  // torchvision clamps bicubic's overshoot for uint8 only (uint16 wraps, as there).
  if (options.interpolation == image::Interpolation::Bicubic && image.dtype() == DType::U8)
    resized = resized.clamp(0, 255);
  return aten::round(resized).to(image.dtype());
}

Tensor center_crop(TensorView image, std::int64_t height, std::int64_t width) {
  check_image("center_crop", image, 2);
  if (height <= 0 || width <= 0)
    refuse("center_crop", "the crop size must be positive, got " + std::to_string(height) + "x" +
                              std::to_string(width));
  Tensor source = image.to_owned();
  const std::int64_t image_height = source.size(-2);
  const std::int64_t image_width = source.size(-1);
  if (height > image_height || width > image_width) {
    const std::int64_t pad_w = std::max<std::int64_t>(width - image_width, 0);
    const std::int64_t pad_h = std::max<std::int64_t>(height - image_height, 0);
    source = functional::pad(source, {pad_w / 2, (pad_w + 1) / 2, pad_h / 2, (pad_h + 1) / 2});
  }
  const std::int64_t top = centered_offset(source.size(-2), height);
  const std::int64_t left = centered_offset(source.size(-1), width);
  return source.i(ellipsis, slice(top, top + height), slice(left, left + width)).to_owned();
}

Tensor normalize(TensorView image, const std::array<double, 3>& mean,
                 const std::array<double, 3>& std) {
  check_image("normalize", image, 3);
  if (!is_floating_point(image.dtype()))
    refuse("normalize", "expected a floating-point image, got " + std::string(name(image.dtype())));
  if (image.size(-3) != 3)
    refuse("normalize",
           "expected 3 channels ([..., 3, H, W]), got " + std::to_string(image.size(-3)));
  const TensorOptions options = TensorOptions(image.dtype()).device(image.device());
  const Tensor means = tensor({mean[0], mean[1], mean[2]}).to(options).reshape({3, 1, 1});
  const Tensor stds = tensor({std[0], std[1], std[2]}).to(options).reshape({3, 1, 1});
  for (const double value : std)
    if (value == 0) refuse("normalize", "std contains a zero, which would divide by zero");
  return (image - means) / stds;
}

namespace {

void check_preset_input(const char* function, TensorView image) {
  check_image(function, image, 3);
  if (image.dim() > 4 || image.size(-3) != 3)
    refuse(function, "expected a [3, H, W] or [N, 3, H, W] image, got " + shape_of(image));
  if (!is_integer_image(image) && !is_floating_point(image.dtype()))
    refuse(function, "expected a uint8, uint16 or floating-point image, got " +
                         std::string(name(image.dtype())));
}

/// convert_image_dtype(image, torch.float) and normalize: the presets' last steps.
Tensor scale_and_normalize(Tensor image, const std::array<double, 3>& mean,
                           const std::array<double, 3>& std) {
  if (is_integer_image(image)) {
    const double max_value = image.dtype() == DType::U8 ? 255.0 : 65535.0;
    image = image.to(DType::F32) / max_value;
  }
  return normalize(image, mean, std);
}

}  // namespace

Tensor image_classification(TensorView image, const ImageClassificationOptions& options) {
  check_preset_input("image_classification", image);
  const Tensor resized =
      resize_shorter_side(image, options.resize_size,
                          {.interpolation = options.interpolation, .antialias = options.antialias});
  return scale_and_normalize(center_crop(resized, options.crop_size, options.crop_size),
                             options.mean, options.std);
}

Tensor semantic_segmentation(TensorView image, const SemanticSegmentationOptions& options) {
  check_preset_input("semantic_segmentation", image);
  Tensor resized = options.resize_size
                       ? resize_shorter_side(image, *options.resize_size,
                                             {.interpolation = options.interpolation,
                                              .antialias = options.antialias})
                       : image.to_owned();
  return scale_and_normalize(std::move(resized), options.mean, options.std);
}

}  // namespace fp::vision::transforms
