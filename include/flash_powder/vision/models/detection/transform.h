// torchvision.models.detection.transform.GeneralizedRCNNTransform, in
// inference: what the R-CNN models do to their images before the backbone
// (normalise, resize, pad into one batch) and to their detections after
// (boxes back to the sizes of the images given). No tensors in the state dict.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "flash_powder/core/tensor.h"
#include "flash_powder/nn/define.h"
#include "flash_powder/nn/module.h"
#include "flash_powder/vision/models/detection/image_list.h"
#include "flash_powder/vision/models/detection/roi_heads.h"

namespace fp::vision::models::detection {

/// GeneralizedRCNNTransform's keyword arguments, with torchvision's defaults.
struct GeneralizedRCNNTransformOptions {
  /// The batch's height and width are rounded up to a multiple of this.
  std::int64_t size_divisible = 32;
  /// When set, (width, height) every image is resized to instead.
  std::optional<std::pair<std::int64_t, std::int64_t>> fixed_size{};
};

/// torchvision's GeneralizedRCNNTransform in eval mode.
class GeneralizedRCNNTransform : public nn::ModuleBase {
 public:
  /// Images resized so that their shorter side is `min_size` unless the
  /// longer would then pass `max_size`, normalised with `image_mean` and
  /// `image_std` (one value per channel). fp::Error (BadArgument) for sizes
  /// below 1 or mean and std of different lengths.
  GeneralizedRCNNTransform(std::int64_t min_size, std::int64_t max_size,
                           std::vector<double> image_mean, std::vector<double> image_std,
                           const GeneralizedRCNNTransformOptions& options = {});

  void visit(nn::Visitor& visitor) override;
  /// The batch of `images` ([C, H, W] floating point each, of any sizes):
  /// each normalised and resized, then zero-padded together. fp::Error
  /// (BadArgument) for no images, an image that is not [C, H, W] with as
  /// many channels as image_mean, or not floating point.
  ImageList forward(const std::vector<TensorView>& images) const;
  FP_MODULE_CALL()

  /// `(image - mean) / std`, per channel.
  Tensor normalize(TensorView image) const;
  /// torchvision's _resize_image_and_masks: bilinear interpolation by the
  /// scale factor min(min_size / shorter side, max_size / longer side).
  Tensor resize(TensorView image) const;
  /// The images in one zero tensor [N, C, H, W], H and W rounded up to
  /// size_divisible.
  Tensor batch_images(const std::vector<Tensor>& images) const;
  /// Each detection's boxes mapped from `image_shapes` (the resized sizes)
  /// back to `original_image_sizes`, its keypoints, if any, too
  /// (resize_keypoints), and its masks, if any, pasted into its image there
  /// (paste_masks_in_image).
  std::vector<Detection> postprocess(std::vector<Detection> result,
                                     const std::vector<ImageSize>& image_shapes,
                                     const std::vector<ImageSize>& original_image_sizes) const;

  /// The shorter side's target.
  std::int64_t min_size;
  /// The longer side's limit.
  std::int64_t max_size;
  /// Per-channel means.
  std::vector<double> image_mean;
  /// Per-channel standard deviations.
  std::vector<double> image_std;
  /// size_divisible and fixed_size.
  GeneralizedRCNNTransformOptions options;
};

/// The (height, width) of each of `images` ([..., H, W]): the sizes the
/// detections are mapped back to. fp::Error (BadArgument) for an image of
/// fewer than 2 dimensions.
std::vector<ImageSize> image_sizes_of(const std::vector<TensorView>& images);

/// torchvision's resize_boxes: [N, 4] boxes scaled from `original_size` to
/// `new_size` ((height, width) each), by float32 ratios. A new Tensor.
Tensor resize_boxes(TensorView boxes, ImageSize original_size, ImageSize new_size);

/// torchvision's resize_keypoints: the x and y of [N, K, 3] keypoints
/// scaled from `original_size` to `new_size` ((height, width) each), by
/// float32 ratios; the third column kept. A new Tensor.
Tensor resize_keypoints(TensorView keypoints, ImageSize original_size, ImageSize new_size);

}  // namespace fp::vision::models::detection
