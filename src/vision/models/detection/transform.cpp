// torchvision/models/detection/transform.py's GeneralizedRCNNTransform in
// eval mode and resize_boxes, op for op.
#include "flash_powder/vision/models/detection/transform.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "flash_powder/base/error.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/functions.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/functional/vision.h"

namespace fp::vision::models::detection {
namespace {

[[noreturn]] void refuse_transform(const std::string& message) {
  throw Error(ErrorCode::BadArgument,
              "fp::vision::models::detection::GeneralizedRCNNTransform: " + message);
}

std::string sizes_text(TensorView t) {
  std::string text = "[";
  for (std::int64_t d = 0; d < t.dim(); ++d)
    text += (d > 0 ? ", " : "") + std::to_string(t.size(d));
  return text + "]";
}

/// `values` as a [C, 1, 1] tensor of `dtype` (torch.as_tensor(values, dtype)[:, None, None]).
Tensor per_channel(const std::vector<double>& values, DType dtype) {
  return fp::tensor(values).to(dtype).reshape({-1, 1, 1});
}

/// torchvision's batch_images rounding: ceil(size / stride) * stride, in floats.
std::int64_t round_up(std::int64_t size, std::int64_t size_divisible) {
  const auto stride = static_cast<double>(size_divisible);
  return static_cast<std::int64_t>(std::ceil(static_cast<double>(size) / stride) * stride);
}

/// torch.tensor(size, dtype=torch.float32) / torch.tensor(original, dtype=torch.float32).
Tensor float32_ratio(std::int64_t size, std::int64_t original) {
  return fp::tensor(static_cast<float>(size)) / fp::tensor(static_cast<float>(original));
}

}  // namespace

GeneralizedRCNNTransform::GeneralizedRCNNTransform(std::int64_t min_size, std::int64_t max_size,
                                                   std::vector<double> image_mean,
                                                   std::vector<double> image_std,
                                                   const GeneralizedRCNNTransformOptions& options)
    : min_size(min_size),
      max_size(max_size),
      image_mean(std::move(image_mean)),
      image_std(std::move(image_std)),
      options(options) {
  if (min_size < 1 || max_size < 1)
    refuse_transform("min_size and max_size should be positive, got " + std::to_string(min_size) +
                     " and " + std::to_string(max_size));
  if (this->image_mean.empty() || this->image_mean.size() != this->image_std.size())
    refuse_transform("image_mean and image_std should hold one value per channel each");
  if (options.size_divisible < 1)
    refuse_transform("size_divisible should be positive, got " +
                     std::to_string(options.size_divisible));
}

void GeneralizedRCNNTransform::visit(nn::Visitor& /*visitor*/) {}

ImageList GeneralizedRCNNTransform::forward(const std::vector<TensorView>& images) const {
  if (images.empty()) refuse_transform("no images: expected a list of [C, H, W] tensors");
  const auto channels = static_cast<std::int64_t>(image_mean.size());
  std::vector<Tensor> resized;
  ImageList result;
  for (const TensorView& image : images) {
    if (image.dim() != 3 || image.size(0) != channels)
      refuse_transform("images are expected to be a list of 3d tensors of shape [" +
                       std::to_string(channels) + ", H, W], got " + sizes_text(image));
    if (!is_floating_point(image.dtype()))
      refuse_transform(
          "expected input images to be of floating type (in range [0, 1]), but "
          "found type " +
          std::string(name(image.dtype())) + " instead");
    resized.push_back(resize(normalize(image)));
    result.image_sizes.emplace_back(resized.back().size(-2), resized.back().size(-1));
  }
  result.tensors = batch_images(resized);
  return result;
}

Tensor GeneralizedRCNNTransform::normalize(TensorView image) const {
  return (image - per_channel(image_mean, image.dtype())) / per_channel(image_std, image.dtype());
}

Tensor GeneralizedRCNNTransform::resize(TensorView image) const {
  const Tensor batch = image.unsqueeze(0).to_owned();
  if (options.fixed_size) {
    const auto [width, height] = *options.fixed_size;
    return functional::interpolate(
               batch, {.size = {height, width}, .mode = "bilinear", .align_corners = false})
        .i(0)
        .to_owned();
  }
  const auto height = static_cast<double>(image.size(-2));
  const auto width = static_cast<double>(image.size(-1));
  const double scale_factor = std::min(static_cast<double>(min_size) / std::min(height, width),
                                       static_cast<double>(max_size) / std::max(height, width));
  return functional::interpolate(batch, {.scale_factor = scale_factor,
                                         .mode = "bilinear",
                                         .align_corners = false,
                                         .recompute_scale_factor = true})
      .i(0)
      .to_owned();
}

Tensor GeneralizedRCNNTransform::batch_images(const std::vector<Tensor>& images) const {
  std::int64_t channels = 0;
  std::int64_t height = 0;
  std::int64_t width = 0;
  for (const Tensor& image : images) {
    channels = std::max(channels, image.size(0));
    height = std::max(height, image.size(1));
    width = std::max(width, image.size(2));
  }
  Tensor batched =
      fp::zeros({static_cast<std::int64_t>(images.size()), channels,
                 round_up(height, options.size_divisible), round_up(width, options.size_divisible)},
                images.front().dtype());
  for (std::size_t i = 0; i < images.size(); ++i) {
    const Tensor& image = images[i];
    batched
        .i_mut(static_cast<std::int64_t>(i), fp::slice(0, image.size(0)),
               fp::slice(0, image.size(1)), fp::slice(0, image.size(2)))
        .copy_(image);
  }
  return batched;
}

std::vector<Detection> GeneralizedRCNNTransform::postprocess(
    std::vector<Detection> result, const std::vector<ImageSize>& image_shapes,
    const std::vector<ImageSize>& original_image_sizes) const {
  for (std::size_t i = 0; i < result.size(); ++i) {
    result[i].boxes = resize_boxes(result[i].boxes, image_shapes[i], original_image_sizes[i]);
    if (result[i].keypoints.is_defined())
      result[i].keypoints =
          resize_keypoints(result[i].keypoints, image_shapes[i], original_image_sizes[i]);
    if (result[i].masks.is_defined())
      result[i].masks =
          paste_masks_in_image(result[i].masks, result[i].boxes, original_image_sizes[i]);
  }
  return result;
}

std::vector<ImageSize> image_sizes_of(const std::vector<TensorView>& images) {
  std::vector<ImageSize> sizes;
  sizes.reserve(images.size());
  for (const TensorView& image : images) {
    if (image.dim() < 2)
      throw Error(ErrorCode::BadArgument,
                  "fp::vision::models::detection::image_sizes_of: images should be [..., H, W], "
                  "got " +
                      sizes_text(image));
    sizes.emplace_back(image.size(-2), image.size(-1));
  }
  return sizes;
}

Tensor resize_boxes(TensorView boxes, ImageSize original_size, ImageSize new_size) {
  if (boxes.dim() != 2 || boxes.size(1) != 4)
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::detection::resize_boxes: boxes should be [N, 4], got " +
                    sizes_text(boxes));
  const Tensor ratio_height = float32_ratio(new_size.first, original_size.first);
  const Tensor ratio_width = float32_ratio(new_size.second, original_size.second);
  const std::vector<TensorView> corners = boxes.unbind(1);
  return fp::stack({corners[0] * ratio_width, corners[1] * ratio_height, corners[2] * ratio_width,
                    corners[3] * ratio_height},
                   1);
}

Tensor resize_keypoints(TensorView keypoints, ImageSize original_size, ImageSize new_size) {
  if (keypoints.dim() != 3 || keypoints.size(2) != 3)
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::detection::resize_keypoints: keypoints should be [N, K, 3], "
                "got " +
                    sizes_text(keypoints));
  const Tensor ratio_height = float32_ratio(new_size.first, original_size.first);
  const Tensor ratio_width = float32_ratio(new_size.second, original_size.second);
  Tensor resized = keypoints.to_owned();
  resized.i_mut(fp::ellipsis, 0).copy_(keypoints.i(fp::ellipsis, 0) * ratio_width);
  resized.i_mut(fp::ellipsis, 1).copy_(keypoints.i(fp::ellipsis, 1) * ratio_height);
  return resized;
}

}  // namespace fp::vision::models::detection
