// torchvision.ops' box utilities: areas, format conversion, the four IoUs,
// clipping, small-box removal and masks to boxes.
// https://pytorch.org/vision/stable/ops.html#box-operators
//
//     fp::Tensor iou = fp::vision::ops::box_iou(predicted, truth);      // [N, M]
//     fp::Tensor xyxy = fp::vision::ops::box_convert(boxes, "cxcywh", "xyxy");
//
// Each is torchvision's Python composed of the same ATen ops in the same
// order, so results equal torchvision's bit for bit on every device and CPU.
// Boxes are [N, 4] tensors, (x1, y1, x2, y2) unless said otherwise; each
// function returns a new Tensor and throws fp::Error (BadArgument) for a
// tensor of another shape.
#pragma once

#include <cstdint>
#include <string_view>

#include "flash_powder/core/tensor.h"

namespace fp::vision::ops {

/// torchvision.ops.box_area: (x2 - x1) * (y2 - y1) of each [..., N, 4] box
/// ("xyxy"), or w * h ("xywh", "cxcywh"), [..., N]; half and bfloat16 boxes
/// are computed in float32, 8- and 16-bit integers in int32 (torchvision's
/// _upcast).
Tensor box_area(TensorView boxes, std::string_view fmt = "xyxy");

/// torchvision.ops.box_convert between "xyxy" (corners), "xywh" (top-left
/// corner, width, height) and "cxcywh" (centre, width, height); a copy when
/// the formats agree. The rotated formats are refused (Unsupported).
Tensor box_convert(TensorView boxes, std::string_view in_fmt, std::string_view out_fmt);

/// torchvision.ops.box_iou: the [..., N, M] intersection over union of every
/// pair of [..., N, 4] and [..., M, 4] boxes in format `fmt` ("xyxy", "xywh"
/// or "cxcywh"; the rotated formats are refused, Unsupported).
Tensor box_iou(TensorView boxes1, TensorView boxes2, std::string_view fmt = "xyxy");

/// torchvision.ops.generalized_box_iou: IoU minus the share of the enclosing
/// box that the union leaves empty, [N, M].
Tensor generalized_box_iou(TensorView boxes1, TensorView boxes2);

/// torchvision.ops.distance_box_iou: IoU minus the squared centre distance
/// over the squared diagonal of the enclosing box (plus `eps`), [N, M].
Tensor distance_box_iou(TensorView boxes1, TensorView boxes2, double eps = 1e-7);

/// torchvision.ops.complete_box_iou: distance IoU minus the aspect-ratio
/// term alpha * v, [N, M].
Tensor complete_box_iou(TensorView boxes1, TensorView boxes2, double eps = 1e-7);

/// torchvision.ops.clip_boxes_to_image: x clamped to [0, width], y to
/// [0, height] (`size` is {height, width}); boxes of shape [..., 4].
Tensor clip_boxes_to_image(TensorView boxes, std::int64_t height, std::int64_t width);

/// torchvision.ops.remove_small_boxes: the int64 indices of the boxes whose
/// width and height are both at least `min_size`, ascending.
Tensor remove_small_boxes(TensorView boxes, double min_size);

/// torchvision.ops.masks_to_boxes: the float32 [N, 4] box (x1, y1, x2, y2, in
/// pixel indices) around the non-zero pixels of each [N, H, W] mask; an empty
/// mask gives zeros and a mask tensor with no elements gives [0, 4].
Tensor masks_to_boxes(TensorView masks);

}  // namespace fp::vision::ops
