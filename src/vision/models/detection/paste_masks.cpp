// torchvision/models/detection/roi_heads.py's paste_masks_in_image (with
// expand_masks, expand_boxes and paste_mask_in_image), op for op.
#include <algorithm>
#include <string>

#include "flash_powder/base/error.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/functions.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/functional/vision.h"
#include "flash_powder/vision/models/detection/roi_heads.h"

namespace fp::vision::models::detection {
namespace {

/// torchvision's expand_boxes: each box about its centre by `scale`.
Tensor expand_boxes(TensorView boxes, double scale) {
  const Tensor x0 = boxes.i(fp::all, 0).to_owned();
  const Tensor y0 = boxes.i(fp::all, 1).to_owned();
  const Tensor x1 = boxes.i(fp::all, 2).to_owned();
  const Tensor y1 = boxes.i(fp::all, 3).to_owned();
  const Tensor w_half = (x1 - x0) * 0.5 * scale;
  const Tensor h_half = (y1 - y0) * 0.5 * scale;
  const Tensor x_c = (x1 + x0) * 0.5;
  const Tensor y_c = (y1 + y0) * 0.5;
  return fp::stack({x_c - w_half, y_c - h_half, x_c + w_half, y_c + h_half}, 1);
}

/// torchvision's paste_mask_in_image: `mask` ([M, M]) resized to `box`
/// (whole pixels, x1 y1 x2 y2) in a zero [height, width] image.
Tensor paste_mask_in_image(TensorView mask, const std::int64_t* box, std::int64_t height,
                           std::int64_t width) {
  const std::int64_t w = std::max<std::int64_t>(box[2] - box[0] + 1, 1);
  const std::int64_t h = std::max<std::int64_t>(box[3] - box[1] + 1, 1);
  const Tensor resized = functional::interpolate(
      mask.unsqueeze(0).unsqueeze(0), {.size = {h, w}, .mode = "bilinear", .align_corners = false});
  Tensor im_mask = fp::zeros({height, width}, mask.dtype());
  const std::int64_t x_0 = std::max<std::int64_t>(box[0], 0);
  const std::int64_t x_1 = std::min(box[2] + 1, width);
  const std::int64_t y_0 = std::max<std::int64_t>(box[1], 0);
  const std::int64_t y_1 = std::min(box[3] + 1, height);
  if (x_1 > x_0 && y_1 > y_0) {
    im_mask.i_mut(fp::slice(y_0, y_1), fp::slice(x_0, x_1))
        .copy_(resized.i(0, 0, fp::slice(y_0 - box[1], y_1 - box[1]),
                         fp::slice(x_0 - box[0], x_1 - box[0])));
  }
  return im_mask;
}

}  // namespace

Tensor paste_masks_in_image(TensorView masks, TensorView boxes, ImageSize image_size,
                            std::int64_t padding) {
  if (masks.dim() != 4 || masks.size(1) != 1 || masks.size(2) != masks.size(3) ||
      boxes.dim() != 2 || boxes.size(1) != 4 || boxes.size(0) != masks.size(0) || padding < 0)
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::detection::paste_masks_in_image: expected [N, 1, M, M] masks "
                "and [N, 4] boxes, and a padding of at least 0");
  const auto [height, width] = image_size;
  if (masks.size(0) == 0) return fp::zeros({0, 1, height, width}, masks.dtype());
  // torchvision's expand_masks: zero padding, and the scale it implies.
  const std::int64_t m = masks.size(-1);
  Tensor padded = fp::zeros({masks.size(0), 1, m + 2 * padding, m + 2 * padding}, masks.dtype());
  padded.i_mut(fp::all, fp::all, fp::slice(padding, padding + m), fp::slice(padding, padding + m))
      .copy_(masks);
  const double scale = static_cast<double>(m + 2 * padding) / static_cast<double>(m);
  const Tensor whole = expand_boxes(boxes, scale).to(DType::I64).contiguous();
  const auto corners = whole.data<std::int64_t>();
  std::vector<Tensor> pasted;
  pasted.reserve(static_cast<std::size_t>(masks.size(0)));
  for (std::int64_t n = 0; n < masks.size(0); ++n)
    pasted.push_back(paste_mask_in_image(padded.i(n, 0), corners.data() + 4 * n, height, width));
  return fp::stack(pasted, 0).unsqueeze(1).to_owned();
}

}  // namespace fp::vision::models::detection
