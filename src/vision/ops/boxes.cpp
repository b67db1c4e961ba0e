// torchvision/ops/boxes.py's box utilities, op for op in torchvision's order
// (so that rounding, and each CPU kernel's choice, is the same as Python's).
#include "flash_powder/vision/ops/boxes.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "box_checks.h"
#include "flash_powder/aten/aten.h"
#include "flash_powder/base/error.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/index.h"
#include "flash_powder/core/operators.h"

namespace fp::vision::ops {
namespace {

using detail::check_boxes;

/// torchvision.ops._utils._upcast: half floats to float32, small integers
/// to int32, so that products do not overflow.
Tensor upcast(TensorView t) {
  const DType dtype = t.dtype();
  if (is_floating_point(dtype)) {
    return dtype == DType::F32 || dtype == DType::F64 ? t.to_owned() : t.to(DType::F32);
  }
  return dtype == DType::I32 || dtype == DType::I64 ? t.to_owned() : t.to(DType::I32);
}

bool is_axis_aligned(std::string_view fmt) {
  return fmt == "xyxy" || fmt == "xywh" || fmt == "cxcywh";
}

bool is_rotated(std::string_view fmt) {
  return fmt == "xywhr" || fmt == "cxcywhr" || fmt == "xyxyxyxy";
}

void check_format(const char* op, std::string_view fmt) {
  if (is_axis_aligned(fmt)) return;
  if (is_rotated(fmt)) {
    throw Error(ErrorCode::Unsupported,
                std::string("fp::vision::ops::") + op + ": rotated boxes ('" + std::string(fmt) +
                    "') are not implemented; use 'xyxy', 'xywh' or 'cxcywh'");
  }
  throw Error(ErrorCode::BadArgument, std::string("fp::vision::ops::") + op +
                                          ": unsupported box format '" + std::string(fmt) +
                                          "'; use 'xyxy', 'xywh' or 'cxcywh'");
}

/// boxes[..., None, a:b] and boxes[..., None, :, a:b]: the two sides of a
/// pairwise [..., N, M, k] operation.
TensorView rows(TensorView boxes, std::int64_t a, std::int64_t b) {
  return boxes.i(fp::ellipsis, fp::newaxis, fp::slice(a, b));
}
TensorView columns(TensorView boxes, std::int64_t a, std::int64_t b) {
  return boxes.i(fp::ellipsis, fp::newaxis, fp::all, fp::slice(a, b));
}

struct InterUnion {
  Tensor inter;
  Tensor unite;
};

/// torchvision's _box_inter_union.
InterUnion inter_union(TensorView boxes1, TensorView boxes2, std::string_view fmt) {
  const Tensor area1 = box_area(boxes1, fmt);
  const Tensor area2 = box_area(boxes2, fmt);
  Tensor lt;
  Tensor rb;
  if (fmt == "xyxy") {
    lt = aten::maximum(rows(boxes1, 0, 2), columns(boxes2, 0, 2));
    rb = aten::minimum(rows(boxes1, 2, 4), columns(boxes2, 2, 4));
  } else if (fmt == "xywh") {
    lt = aten::maximum(rows(boxes1, 0, 2), columns(boxes2, 0, 2));
    rb = aten::minimum(rows(boxes1, 0, 2) + rows(boxes1, 2, 4),
                       columns(boxes2, 0, 2) + columns(boxes2, 2, 4));
  } else {
    lt = aten::maximum(rows(boxes1, 0, 2) - rows(boxes1, 2, 4) / 2,
                       columns(boxes2, 0, 2) - columns(boxes2, 2, 4) / 2);
    rb = aten::minimum(rows(boxes1, 0, 2) + rows(boxes1, 2, 4) / 2,
                       columns(boxes2, 0, 2) + columns(boxes2, 2, 4) / 2);
  }
  const Tensor wh = upcast(rb - lt).clamp(0);
  Tensor inter = wh.i(fp::ellipsis, 0) * wh.i(fp::ellipsis, 1);
  Tensor unite =
      area1.i(fp::ellipsis, fp::newaxis) + area2.i(fp::ellipsis, fp::newaxis, fp::all) - inter;
  return {std::move(inter), std::move(unite)};
}

/// The enclosing box's [..., N, M, 2] width and height (xyxy boxes).
Tensor enclosing_size(TensorView boxes1, TensorView boxes2) {
  const Tensor lti = aten::minimum(rows(boxes1, 0, 2), columns(boxes2, 0, 2));
  const Tensor rbi = aten::maximum(rows(boxes1, 2, 4), columns(boxes2, 2, 4));
  return upcast(rbi - lti).clamp(0);
}

struct DistanceIou {
  Tensor diou;
  Tensor iou;
};

/// torchvision's _box_diou_iou (boxes already upcast).
DistanceIou diou_iou(TensorView boxes1, TensorView boxes2, double eps) {
  Tensor iou = box_iou(boxes1, boxes2);
  const Tensor whi = enclosing_size(boxes1, boxes2);
  const Tensor diagonal_squared =
      whi.i(fp::ellipsis, 0).pow(2) + whi.i(fp::ellipsis, 1).pow(2) + eps;
  const auto centre = [](TensorView boxes, std::int64_t low) {
    return (boxes.i(fp::ellipsis, low) + boxes.i(fp::ellipsis, low + 2)) / 2;
  };
  const Tensor x_p = centre(boxes1, 0);
  const Tensor y_p = centre(boxes1, 1);
  const Tensor x_g = centre(boxes2, 0);
  const Tensor y_g = centre(boxes2, 1);
  const auto squared_gap = [](TensorView p, TensorView g) {
    return upcast(p.i(fp::ellipsis, fp::newaxis) - g.i(fp::ellipsis, fp::newaxis, fp::all)).pow(2);
  };
  const Tensor centres_squared = squared_gap(x_p, x_g) + squared_gap(y_p, y_g);
  Tensor diou = iou - centres_squared / diagonal_squared;
  return {std::move(diou), std::move(iou)};
}

void check_pair(const char* op, TensorView boxes1, TensorView boxes2) {
  check_boxes(op, "boxes1", boxes1);
  check_boxes(op, "boxes2", boxes2);
}

/// boxes[..., k] - boxes[..., k - 2]: widths (k = 2) or heights (k = 3).
Tensor side(TensorView boxes, std::int64_t k) {
  return boxes.i(fp::ellipsis, k) - boxes.i(fp::ellipsis, k - 2);
}

Tensor xywh_to_xyxy(TensorView boxes) {
  const auto xywh = boxes.unbind(-1);
  return aten::stack({xywh[0], xywh[1], xywh[0] + xywh[2], xywh[1] + xywh[3]}, -1);
}

Tensor cxcywh_to_xyxy(TensorView boxes) {
  const auto c = boxes.unbind(-1);
  return aten::stack({c[0] - 0.5 * c[2], c[1] - 0.5 * c[3], c[0] + 0.5 * c[2], c[1] + 0.5 * c[3]},
                     -1);
}

Tensor xyxy_to_xywh(TensorView boxes) {
  const auto c = boxes.unbind(-1);
  return aten::stack({c[0], c[1], c[2] - c[0], c[3] - c[1]}, -1);
}

Tensor xyxy_to_cxcywh(TensorView boxes) {
  const auto c = boxes.unbind(-1);
  return aten::stack({(c[0] + c[2]) / 2, (c[1] + c[3]) / 2, c[2] - c[0], c[3] - c[1]}, -1);
}

}  // namespace

Tensor box_area(TensorView boxes, std::string_view fmt) {
  check_format("box_area", fmt);
  check_boxes("box_area", "boxes", boxes, 1);
  const Tensor upcast_boxes = upcast(boxes);
  if (fmt == "xyxy") return side(upcast_boxes, 2) * side(upcast_boxes, 3);
  return upcast_boxes.i(fp::ellipsis, 2) * upcast_boxes.i(fp::ellipsis, 3);
}

Tensor box_convert(TensorView boxes, std::string_view in_fmt, std::string_view out_fmt) {
  check_format("box_convert", in_fmt);
  check_format("box_convert", out_fmt);
  check_boxes("box_convert", "boxes", boxes, 1);
  if (in_fmt == out_fmt) return boxes.clone();
  Tensor xyxy = in_fmt == "xyxy"   ? boxes.to_owned()
                : in_fmt == "xywh" ? xywh_to_xyxy(boxes)
                                   : cxcywh_to_xyxy(boxes);
  if (out_fmt == "xyxy") return xyxy;
  return out_fmt == "xywh" ? xyxy_to_xywh(xyxy) : xyxy_to_cxcywh(xyxy);
}

Tensor box_iou(TensorView boxes1, TensorView boxes2, std::string_view fmt) {
  check_format("box_iou", fmt);
  check_pair("box_iou", boxes1, boxes2);
  const auto [inter, unite] = inter_union(boxes1, boxes2, fmt);
  return inter / unite;
}

Tensor generalized_box_iou(TensorView boxes1, TensorView boxes2) {
  check_pair("generalized_box_iou", boxes1, boxes2);
  const auto [inter, unite] = inter_union(boxes1, boxes2, "xyxy");
  const Tensor iou = inter / unite;
  const Tensor whi = enclosing_size(boxes1, boxes2);
  const Tensor areai = whi.i(fp::ellipsis, 0) * whi.i(fp::ellipsis, 1);
  return iou - (areai - unite) / areai;
}

Tensor distance_box_iou(TensorView boxes1, TensorView boxes2, double eps) {
  check_pair("distance_box_iou", boxes1, boxes2);
  return diou_iou(upcast(boxes1), upcast(boxes2), eps).diou;
}

Tensor complete_box_iou(TensorView boxes1, TensorView boxes2, double eps) {
  check_pair("complete_box_iou", boxes1, boxes2);
  const Tensor b1 = upcast(boxes1);
  const Tensor b2 = upcast(boxes2);
  const auto [diou, iou] = diou_iou(b1, b2, eps);
  const auto rows_side = [&](std::int64_t k) {
    return b1.i(fp::ellipsis, fp::newaxis, k) - b1.i(fp::ellipsis, fp::newaxis, k - 2);
  };
  const auto columns_side = [&](std::int64_t k) {
    return b2.i(fp::ellipsis, fp::newaxis, fp::all, k) -
           b2.i(fp::ellipsis, fp::newaxis, fp::all, k - 2);
  };
  const Tensor aspect_pred = aten::atan(rows_side(2) / rows_side(3));
  const Tensor aspect_gt = aten::atan(columns_side(2) / columns_side(3));
  // Python's 4 / (torch.pi ** 2), a double.
  const double scale = 4 / std::pow(std::numbers::pi, 2);
  const Tensor v = scale * (aspect_pred - aspect_gt).pow(2);
  const Tensor alpha = v / (1 - iou + v + eps);
  return diou - alpha * v;
}

Tensor clip_boxes_to_image(TensorView boxes, std::int64_t height, std::int64_t width) {
  check_boxes("clip_boxes_to_image", "boxes", boxes, 1);
  if (height < 0 || width < 0) {
    throw Error(ErrorCode::BadArgument,
                "fp::vision::ops::clip_boxes_to_image: the image size must not be negative, got (" +
                    std::to_string(height) + ", " + std::to_string(width) + ")");
  }
  const Tensor x = boxes.i(fp::ellipsis, fp::slice(0, fp::end, 2)).clamp(0, width);
  const Tensor y = boxes.i(fp::ellipsis, fp::slice(1, fp::end, 2)).clamp(0, height);
  return aten::stack({x, y}, boxes.dim()).reshape(boxes.sizes());
}

Tensor remove_small_boxes(TensorView boxes, double min_size) {
  check_boxes("remove_small_boxes", "boxes", boxes);
  const Tensor keep = (side(boxes, 2) >= min_size) & (side(boxes, 3) >= min_size);
  return aten::nonzero(keep).i(fp::all, 0).to_owned();
}

Tensor masks_to_boxes(TensorView masks) {
  if (masks.dim() != 3) {
    detail::refuse("masks_to_boxes",
                   "masks should be a [N, H, W] tensor, got shape " + detail::shape_text(masks));
  }
  if (masks.numel() == 0) return fp::zeros({0, 4}, TensorOptions(DType::F32, masks.device()));
  // In C++ over the bits (the answer is whole numbers, exact in any order).
  const Tensor bits = masks.to(DType::Bool).to(Device::cpu()).contiguous();
  const std::int64_t n = masks.size(0), h = masks.size(1), w = masks.size(2);
  Tensor boxes = fp::zeros({n, 4}, DType::F32);
  const auto mask_bits = bits.data<bool>();
  auto out = boxes.data_mut<float>();
  for (std::int64_t k = 0; k < n; ++k) {
    std::int64_t x1 = w, y1 = h, x2 = -1, y2 = -1;
    for (std::int64_t y = 0; y < h; ++y) {
      const bool* row = mask_bits.data() + (k * h + y) * w;
      for (std::int64_t x = 0; x < w; ++x) {
        if (!row[x]) continue;
        x1 = std::min(x1, x);
        x2 = std::max(x2, x);
        y1 = std::min(y1, y);
        y2 = y;
      }
    }
    if (x2 < 0) continue;  // an empty mask: zeros
    float* box = out.data() + 4 * k;
    box[0] = static_cast<float>(x1);
    box[1] = static_cast<float>(y1);
    box[2] = static_cast<float>(x2);
    box[3] = static_cast<float>(y2);
  }
  return masks.device().is_cpu() ? std::move(boxes) : boxes.to(masks.device());
}

}  // namespace fp::vision::ops
