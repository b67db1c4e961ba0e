// torchvision.models.detection._utils.BoxCoder and BoxLinearCoder (their
// decoding halves): boxes from reference boxes (anchors, proposals) and the
// regression deltas the heads predict (BoxLinearCoder: FCOS's distances).
#pragma once

#include <array>
#include <cmath>
#include <vector>

#include "flash_powder/core/tensor.h"

namespace fp::vision::models::detection {

/// torchvision's BoxCoder: deltas (dx, dy, dw, dh) divided by `weights`,
/// dw and dh clamped to `bbox_xform_clip`.
struct BoxCoder {
  /// The weights (wx, wy, ww, wh) the deltas were scaled by.
  std::array<double, 4> weights{1.0, 1.0, 1.0, 1.0};
  /// The largest dw and dh before exp: log(1000 / 16), as torchvision.
  double bbox_xform_clip = std::log(1000.0 / 16);

  /// [sum of boxes, K, 4]: each box of `boxes` (one [L, 4] tensor per image,
  /// concatenated) moved by each of its K deltas of `rel_codes` ([sum of
  /// boxes, 4 K], or any shape holding as many deltas). A new Tensor.
  Tensor decode(TensorView rel_codes, const std::vector<Tensor>& boxes) const;
  /// [L, 4 K] boxes: `boxes` ([L, 4]) moved by `rel_codes` ([L, 4 K]).
  Tensor decode_single(TensorView rel_codes, TensorView boxes) const;
};

/// torchvision's BoxLinearCoder: each code is the distances (left, top,
/// right, bottom) from the reference box's centre, in units of its width
/// and height when `normalize_by_size`.
struct BoxLinearCoder {
  /// Whether the distances are divided by the box's width and height.
  bool normalize_by_size = true;

  /// [..., 4] boxes: `boxes` ([..., 4]) moved by `rel_codes` (the same shape).
  Tensor decode(TensorView rel_codes, TensorView boxes) const;
};

}  // namespace fp::vision::models::detection
