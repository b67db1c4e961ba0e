// torchvision/models/detection/_utils.py's BoxCoder.decode and
// BoxLinearCoder.decode, op for op (each
// elementwise op on tensors of the shapes Python's has: ATen's vectorised
// and scalar paths may differ in the last bit).
#include "flash_powder/vision/models/detection/box_coder.h"

#include <cstdint>

#include "flash_powder/core/factory.h"
#include "flash_powder/core/functions.h"
#include "flash_powder/core/index.h"
#include "flash_powder/core/operators.h"

namespace fp::vision::models::detection {

Tensor BoxCoder::decode(TensorView rel_codes, const std::vector<Tensor>& boxes) const {
  const Tensor concat_boxes = fp::cat(boxes, 0);
  const std::int64_t box_sum = concat_boxes.size(0);
  if (box_sum == 0) {
    // torchvision leaves this [0, 4 K]; [0, K, 4] empties the same way downstream.
    const Tensor decoded = decode_single(rel_codes, concat_boxes);
    return decoded.reshape({0, decoded.size(-1) / 4, 4});
  }
  return decode_single(rel_codes.reshape({box_sum, -1}), concat_boxes).reshape({box_sum, -1, 4});
}

Tensor BoxCoder::decode_single(TensorView rel_codes, TensorView reference) const {
  const Tensor boxes = reference.to(rel_codes.dtype());
  const Tensor widths = boxes.i(fp::all, 2) - boxes.i(fp::all, 0);
  const Tensor heights = boxes.i(fp::all, 3) - boxes.i(fp::all, 1);
  const Tensor ctr_x = boxes.i(fp::all, 0) + 0.5 * widths;
  const Tensor ctr_y = boxes.i(fp::all, 1) + 0.5 * heights;

  const auto every_fourth = [&](std::int64_t first) {
    return rel_codes.i(fp::all, fp::slice(first, fp::end, 4));
  };
  const Tensor dx = every_fourth(0) / weights[0];
  const Tensor dy = every_fourth(1) / weights[1];
  // Prevent sending too large values into torch.exp().
  const Tensor dw = (every_fourth(2) / weights[2]).clamp(std::nullopt, bbox_xform_clip);
  const Tensor dh = (every_fourth(3) / weights[3]).clamp(std::nullopt, bbox_xform_clip);

  const Tensor widths_column = widths.unsqueeze(1).to_owned();
  const Tensor heights_column = heights.unsqueeze(1).to_owned();
  const Tensor pred_ctr_x = dx * widths_column + ctr_x.unsqueeze(1);
  const Tensor pred_ctr_y = dy * heights_column + ctr_y.unsqueeze(1);
  const Tensor pred_w = dw.exp() * widths_column;
  const Tensor pred_h = dh.exp() * heights_column;

  // torchvision's torch.tensor(0.5, dtype=...): a 0-dim tensor, not a Python number.
  const Tensor half = fp::full({}, 0.5, pred_w.dtype());
  const Tensor c_to_c_h = half * pred_h;
  const Tensor c_to_c_w = half * pred_w;
  return fp::stack({pred_ctr_x - c_to_c_w, pred_ctr_y - c_to_c_h, pred_ctr_x + c_to_c_w,
                    pred_ctr_y + c_to_c_h},
                   2)
      .flatten(1);
}

Tensor BoxLinearCoder::decode(TensorView rel_codes, TensorView reference) const {
  const Tensor boxes = reference.to(rel_codes.dtype());
  const auto column = [](TensorView t, std::int64_t index) { return t.i(fp::ellipsis, index); };
  const Tensor ctr_x = 0.5 * (column(boxes, 0) + column(boxes, 2));
  const Tensor ctr_y = 0.5 * (column(boxes, 1) + column(boxes, 3));
  Tensor codes = rel_codes.to_owned();
  if (normalize_by_size) {
    const Tensor boxes_w = column(boxes, 2) - column(boxes, 0);
    const Tensor boxes_h = column(boxes, 3) - column(boxes, 1);
    codes = rel_codes * fp::stack({boxes_w, boxes_h, boxes_w, boxes_h}, -1);
  }
  return fp::stack({ctr_x - column(codes, 0), ctr_y - column(codes, 1), ctr_x + column(codes, 2),
                    ctr_y + column(codes, 3)},
                   -1);
}

}  // namespace fp::vision::models::detection
