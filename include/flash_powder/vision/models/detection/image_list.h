// torchvision.models.detection.image_list.ImageList: the images of a batch
// padded into one tensor, with the size each had before the padding.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "flash_powder/core/tensor.h"

namespace fp::vision::models::detection {

/// (height, width) of an image, as torchvision's `image_sizes` entries.
using ImageSize = std::pair<std::int64_t, std::int64_t>;

/// torchvision's ImageList.
struct ImageList {
  /// [N, C, H, W]: the images, zero-padded to a common size.
  Tensor tensors;
  /// Each image's size inside `tensors`, before the padding.
  std::vector<ImageSize> image_sizes;
};

}  // namespace fp::vision::models::detection
