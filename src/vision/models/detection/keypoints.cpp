// torchvision/models/detection/roi_heads.py's heatmaps_to_keypoints, op for
// op: each RoI's arithmetic in float32 scalars, one rounding per operation
// as its 0-dim tensors (the library builds with -ffp-contract=off).
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "flash_powder/base/error.h"
#include "flash_powder/core/conversion.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/functional/vision.h"
#include "flash_powder/vision/models/detection/roi_heads.h"

namespace fp::vision::models::detection {

std::pair<Tensor, Tensor> heatmaps_to_keypoints(TensorView maps, TensorView rois) {
  if (maps.dim() != 4 || rois.dim() != 2 || rois.size(1) != 4 || rois.size(0) != maps.size(0))
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::detection::heatmaps_to_keypoints: expected [R, K, H, W] maps "
                "and [R, 4] rois");
  const std::int64_t num_rois = maps.size(0);
  const std::int64_t num_keypoints = maps.size(1);
  const Tensor boxes = rois.to(DType::F32).contiguous();
  const auto box = boxes.data<float>();
  std::vector<float> keypoints(static_cast<std::size_t>(num_rois * num_keypoints * 3));
  std::vector<float> scores(static_cast<std::size_t>(num_rois * num_keypoints));
  for (std::int64_t i = 0; i < num_rois; ++i) {
    const float* roi = box.data() + 4 * i;
    const float width = std::max(roi[2] - roi[0], 1.0F);
    const float height = std::max(roi[3] - roi[1], 1.0F);
    const auto roi_map_width = static_cast<std::int64_t>(std::ceil(width));
    const auto roi_map_height = static_cast<std::int64_t>(std::ceil(height));
    const float width_correction = width / static_cast<float>(roi_map_width);
    const float height_correction = height / static_cast<float>(roi_map_height);
    const Tensor roi_map =
        functional::interpolate(
            maps.i(i).unsqueeze(1),
            {.size = {roi_map_height, roi_map_width}, .mode = "bicubic", .align_corners = false})
            .reshape({num_keypoints, -1});
    const Tensor pos = roi_map.argmax(1).contiguous();
    const auto position = pos.data<std::int64_t>();
    const auto values = roi_map.data<float>();
    for (std::int64_t k = 0; k < num_keypoints; ++k) {
      const std::int64_t x_int = position[k] % roi_map_width;
      const std::int64_t y_int = (position[k] - x_int) / roi_map_width;
      const float x = (static_cast<float>(x_int) + 0.5F) * width_correction;
      const float y = (static_cast<float>(y_int) + 0.5F) * height_correction;
      float* keypoint = keypoints.data() + 3 * (i * num_keypoints + k);
      keypoint[0] = x + roi[0];
      keypoint[1] = y + roi[1];
      keypoint[2] = 1.0F;
      scores[static_cast<std::size_t>(i * num_keypoints + k)] =
          values[static_cast<std::size_t>(k * roi_map_width * roi_map_height + position[k])];
    }
  }
  return {fp::tensor(std::span<const float>(keypoints)).reshape({num_rois, num_keypoints, 3}),
          fp::tensor(std::span<const float>(scores)).reshape({num_rois, num_keypoints})};
}

}  // namespace fp::vision::models::detection
