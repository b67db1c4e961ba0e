// The argument checks fp::vision::ops' functions share.
#pragma once

#include <cstdint>
#include <string>

#include "flash_powder/base/dtype.h"
#include "flash_powder/base/error.h"
#include "flash_powder/core/tensor.h"

namespace fp::vision::ops::detail {

/// "[2, 3]": the sizes as in messages.
inline std::string shape_text(TensorView t) {
  std::string text = "[";
  for (std::int64_t d = 0; d < t.dim(); ++d) {
    if (d > 0) text += ", ";
    text += std::to_string(t.size(d));
  }
  return text + "]";
}

/// Throws fp::Error (BadArgument) with fp::vision::ops::<op>'s name.
[[noreturn]] inline void refuse(const char* op, const std::string& message) {
  throw Error(ErrorCode::BadArgument, std::string("fp::vision::ops::") + op + ": " + message);
}

/// Boxes: [..., 4] with at least `min_dim` dimensions, real numbers.
inline void check_boxes(const char* op, const char* name, TensorView boxes,
                        std::int64_t min_dim = 2) {
  if (boxes.dim() < min_dim || boxes.size(-1) != 4) {
    refuse(op, std::string(name) + " should be a " + (min_dim == 1 ? "[..., 4]" : "[..., N, 4]") +
                   " tensor, got shape " + shape_text(boxes));
  }
  const DType dtype = boxes.dtype();
  if (dtype == DType::Bool || is_complex(dtype)) {
    refuse(op,
           std::string(name) + " should hold real numbers, got " + std::string(fp::name(dtype)));
  }
}

}  // namespace fp::vision::ops::detail
