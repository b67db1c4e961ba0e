// torchvision's CPU nms kernel (torchvision/csrc/ops/cpu/nms_kernel.cpp) in
// C++ over the tensors' data, and batched_nms's two strategies
// (torchvision/ops/boxes.py).
//
// Why C++ and not ATen ops: nms is a sequential scan (each kept box
// suppresses later ones), which no ATen op expresses. The boxes are copied
// into columns in score order and those not yet suppressed kept packed, so
// the scan reads memory in order and skips the suppressed boxes
// (torchvision gathers through the order and tests a flag per box); the
// arithmetic, and so every comparison, is torchvision's. The order itself comes from libtorch's sort
// of the scores, as in torchvision: its order of equal scores is part of the
// result. torchvision's kernel sorts stably (equal scores in index order);
// its per-category batched_nms sorts the kept indices with Python's default,
// unstable sort, which is libtorch's too.
#include "flash_powder/vision/ops/nms.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "box_checks.h"
#include "flash_powder/aten/aten.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/operators.h"

namespace fp::vision::ops {
namespace {

using detail::refuse;
using detail::shape_text;

/// torchvision's CPU batched_nms switches to one nms per category above
/// this many box coordinates (boxes.numel()).
constexpr std::int64_t kVanillaAbove = 4000;

void check_nms_arguments(const char* op, TensorView boxes, TensorView scores) {
  if (boxes.dim() != 2 || boxes.size(1) != 4) {
    refuse(op, "boxes should be a [N, 4] tensor, got shape " + shape_text(boxes));
  }
  if (scores.dim() != 1 || scores.size(0) != boxes.size(0)) {
    refuse(op, "scores should be a [N] tensor for " + std::to_string(boxes.size(0)) +
                   " boxes, got shape " + shape_text(scores));
  }
  if (boxes.dtype() != scores.dtype()) {
    refuse(op, "boxes and scores should have the same dtype, got " +
                   std::string(name(boxes.dtype())) + " and " + std::string(name(scores.dtype())));
  }
  if (boxes.dtype() != DType::F32 && boxes.dtype() != DType::F64) {
    refuse(op, "boxes should be float32 or float64 (torchvision's CPU kernel), got " +
                   std::string(name(boxes.dtype())));
  }
  if (!boxes.device().is_cpu() || !scores.device().is_cpu()) {
    throw Error(ErrorCode::Unsupported,
                std::string("fp::vision::ops::") + op +
                    ": only CPU tensors are implemented; copy them with .to(fp::Device::cpu())");
  }
}

/// torchvision's scan over boxes in score order; returns the kept indices.
/// Areas are computed as torchvision's ATen expression (x2 - x1) * (y2 - y1)
/// rounds them, each overlap as its kernel does. Instead of flagging
/// suppressed boxes, the boxes still in the running are kept packed in score
/// order: each kept box then only visits those (the same comparisons, so the
/// same result, with less work and memory in order).
template <class T>
std::vector<std::int64_t> suppress(std::span<const T> boxes, std::span<const std::int64_t> order,
                                   double iou_threshold) {
  std::size_t alive = order.size();
  std::vector<T> x1(alive), y1(alive), x2(alive), y2(alive), areas(alive);
  std::vector<std::int64_t> index(order.begin(), order.end());
  for (std::size_t k = 0; k < alive; ++k) {
    const T* box = boxes.data() + 4 * order[k];
    x1[k] = box[0];
    y1[k] = box[1];
    x2[k] = box[2];
    y2[k] = box[3];
    areas[k] = (x2[k] - x1[k]) * (y2[k] - y1[k]);
  }
  std::vector<std::int64_t> keep;
  while (alive > 0) {
    keep.push_back(index[0]);
    const T ix1 = x1[0], iy1 = y1[0], ix2 = x2[0], iy2 = y2[0], iarea = areas[0];
    std::size_t survivors = 0;
    for (std::size_t j = 1; j < alive; ++j) {
      const T xx1 = std::max(ix1, x1[j]);
      const T yy1 = std::max(iy1, y1[j]);
      const T xx2 = std::min(ix2, x2[j]);
      const T yy2 = std::min(iy2, y2[j]);
      const T w = std::max(static_cast<T>(0), xx2 - xx1);
      const T h = std::max(static_cast<T>(0), yy2 - yy1);
      const T inter = w * h;
      const T overlap = inter / (iarea + areas[j] - inter);
      // Written unconditionally, kept only when not suppressed (NaN stays).
      x1[survivors] = x1[j];
      y1[survivors] = y1[j];
      x2[survivors] = x2[j];
      y2[survivors] = y2[j];
      areas[survivors] = areas[j];
      index[survivors] = index[j];
      survivors += overlap > iou_threshold ? 0 : 1;
    }
    alive = survivors;
  }
  return keep;
}

Tensor as_index_tensor(const std::vector<std::int64_t>& indices) {
  Tensor out = fp::empty({static_cast<std::int64_t>(indices.size())}, DType::I64);
  std::copy(indices.begin(), indices.end(), out.data_mut<std::int64_t>().begin());
  return out;
}

/// nms on checked CPU tensors.
Tensor nms_cpu(TensorView boxes, TensorView scores, double iou_threshold) {
  if (boxes.numel() == 0) return fp::empty({0}, DType::I64);
  const Tensor order = std::get<1>(aten::sort_stable(scores, true, 0, true));
  const Tensor data = boxes.contiguous();
  const auto order_data = order.data<std::int64_t>();
  if (boxes.dtype() == DType::F64) {
    return as_index_tensor(suppress<double>(data.data<double>(), order_data, iou_threshold));
  }
  return as_index_tensor(suppress<float>(data.data<float>(), order_data, iou_threshold));
}

/// torchvision's _batched_nms_coordinate_trick: each category's boxes moved
/// by idx * (max coordinate + 1), then one nms.
Tensor coordinate_trick(TensorView boxes, TensorView scores, TensorView idxs,
                        double iou_threshold) {
  if (boxes.numel() == 0) return fp::empty({0}, DType::I64);
  const Tensor max_coordinate = boxes.max();
  const Tensor offsets = idxs.to(boxes.dtype()) * (max_coordinate + fp::ones({}, boxes.dtype()));
  return nms_cpu(boxes + offsets.i(fp::all, fp::newaxis), scores, iou_threshold);
}

/// torchvision's _batched_nms_vanilla: nms per category, then the kept
/// indices ordered by libtorch's sort of their scores.
Tensor per_category(TensorView boxes, TensorView scores, TensorView idxs, double iou_threshold) {
  const Tensor categories = idxs.to(DType::I64).contiguous();
  std::map<std::int64_t, std::vector<std::int64_t>> members;
  const auto category = categories.data<std::int64_t>();
  for (std::size_t i = 0; i < category.size(); ++i)
    members[category[i]].push_back(static_cast<std::int64_t>(i));
  std::vector<std::uint8_t> kept(category.size(), 0);
  for (const auto& [id, indices] : members) {
    const Tensor index = as_index_tensor(indices);
    const Tensor keep = nms_cpu(aten::index_select(boxes, 0, index),
                                aten::index_select(scores, 0, index), iou_threshold);
    for (const std::int64_t k : keep.data<std::int64_t>())
      kept[indices[static_cast<std::size_t>(k)]] = 1;
  }
  std::vector<std::int64_t> keep_indices;
  for (std::size_t i = 0; i < kept.size(); ++i)
    if (kept[i] != 0) keep_indices.push_back(static_cast<std::int64_t>(i));
  const Tensor keep = as_index_tensor(keep_indices);
  const Tensor order = std::get<1>(aten::sort(aten::index_select(scores, 0, keep), -1, true));
  return aten::index_select(keep, 0, order);
}

}  // namespace

Tensor nms(TensorView boxes, TensorView scores, double iou_threshold) {
  check_nms_arguments("nms", boxes, scores);
  return nms_cpu(boxes, scores, iou_threshold);
}

Tensor batched_nms(TensorView boxes, TensorView scores, TensorView idxs, double iou_threshold) {
  check_nms_arguments("batched_nms", boxes, scores);
  if (idxs.dim() != 1 || idxs.size(0) != boxes.size(0)) {
    refuse("batched_nms", "idxs should be a [N] tensor for " + std::to_string(boxes.size(0)) +
                              " boxes, got shape " + shape_text(idxs));
  }
  if (!is_integral(idxs.dtype())) {
    refuse("batched_nms",
           "idxs should hold integer categories, got " + std::string(name(idxs.dtype())));
  }
  if (!idxs.device().is_cpu()) {
    throw Error(ErrorCode::Unsupported,
                "fp::vision::ops::batched_nms: only CPU tensors are implemented; copy them with "
                ".to(fp::Device::cpu())");
  }
  if (boxes.numel() > kVanillaAbove) return per_category(boxes, scores, idxs, iou_threshold);
  return coordinate_trick(boxes, scores, idxs, iou_threshold);
}

}  // namespace fp::vision::ops
