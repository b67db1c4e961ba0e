// torchvision/ops/_utils.py's convert_boxes_to_roi_format and the checks
// that every RoI op makes of its arguments.
#include "flash_powder/vision/ops/roi.h"

#include <cmath>
#include <limits>
#include <string>

#include "box_checks.h"
#include "flash_powder/aten/aten.h"
#include "flash_powder/core/factory.h"
#include "roi_arguments.h"

namespace fp::vision::ops {

Tensor convert_boxes_to_roi_format(const std::vector<TensorView>& boxes) {
  if (boxes.empty()) detail::refuse("convert_boxes_to_roi_format", "no boxes were given");
  for (const TensorView& b : boxes) {
    if (b.dim() != 2 || b.size(1) != 4) {
      detail::refuse("convert_boxes_to_roi_format",
                     "the shape of the tensor in the boxes list is not correct as [L, 4], got " +
                         detail::shape_text(b));
    }
  }
  std::vector<Tensor> ids;
  ids.reserve(boxes.size());
  for (std::size_t i = 0; i < boxes.size(); ++i)
    ids.push_back(
        fp::full_like(boxes[i].i(fp::all, fp::slice(0, 1)), static_cast<std::int64_t>(i)));
  // torchvision's _cat: a single tensor is used as it is.
  const Tensor concat_boxes = boxes.size() == 1 ? boxes[0].to_owned() : aten::cat(boxes, 0);
  const Tensor concat_ids = ids.size() == 1 ? ids[0] : aten::cat(ids, 0);
  return aten::cat({concat_ids, concat_boxes}, 1);
}

namespace detail {

RoiArguments::RoiArguments(const char* op, TensorView input, TensorView rois, PooledSize size,
                           double spatial_scale)
    : pooled_height(size.height), pooled_width(size.width), spatial_scale(spatial_scale) {
  if (input.dim() != 4)
    refuse(op, "input should be a [N, C, H, W] tensor, got shape " + shape_text(input));
  if (rois.dim() != 2 || rois.size(1) != 5) {
    refuse(op, "the boxes tensor shape is not correct as [K, 5], got " + shape_text(rois));
  }
  if (input.dtype() != rois.dtype()) {
    refuse(op, "input and rois should have the same dtype, got " +
                   std::string(name(input.dtype())) + " and " + std::string(name(rois.dtype())));
  }
  if (!input.device().is_cpu() || !rois.device().is_cpu()) {
    throw Error(ErrorCode::Unsupported,
                std::string("fp::vision::ops::") + op +
                    ": only CPU tensors are implemented; copy them with .to(fp::Device::cpu())");
  }
  if (pooled_height < 0 || pooled_width < 0) {
    refuse(op, "the output size should not be negative, got (" + std::to_string(pooled_height) +
                   ", " + std::to_string(pooled_width) + ")");
  }
  batch = input.size(0);
  channels = input.size(1);
  height = input.size(2);
  width = input.size(3);
  num_rois = rois.size(0);
  if (height * width > std::numeric_limits<int>::max()) {
    refuse(op,
           "input planes of more than 2^31 - 1 pixels are not supported, got " + shape_text(input));
  }
  data = input.contiguous();
  regions = rois.contiguous();
}

}  // namespace detail
}  // namespace fp::vision::ops
