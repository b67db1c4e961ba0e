// torchvision.ops.nms and batched_nms: non-maximum suppression.
// https://pytorch.org/vision/stable/generated/torchvision.ops.nms.html
//
//     fp::Tensor keep = fp::vision::ops::nms(boxes, scores, 0.5);   // int64 indices
//
// Indices equal torchvision's exactly, ties included: the boxes are visited
// in the order of libtorch's own sort of the scores, as torchvision's
// kernel does.
#pragma once

#include "flash_powder/core/tensor.h"

namespace fp::vision::ops {

/// torchvision.ops.nms: the int64 indices of the [N, 4] (x1, y1, x2, y2)
/// `boxes` kept, by decreasing `scores` ([N], the boxes' dtype, float32 or
/// float64); a box is dropped when its IoU with a kept higher-scoring box is
/// greater than `iou_threshold`. CPU tensors (others: Unsupported).
Tensor nms(TensorView boxes, TensorView scores, double iou_threshold);

/// torchvision.ops.batched_nms: nms within each category of the integer
/// `idxs` ([N]) and never across them; the kept indices by decreasing score.
/// Like torchvision it offsets each category's boxes beyond the others'
/// (up to 4000 coordinates) or runs nms per category (more).
Tensor batched_nms(TensorView boxes, TensorView scores, TensorView idxs, double iou_threshold);

}  // namespace fp::vision::ops
