// Sizes and strides as vectors, for comparing with Python's `list(t.shape)`.
#pragma once

#include <cstdint>
#include <vector>

#include "flash_powder/core/tensor.h"

namespace fp_test {

inline std::vector<std::int64_t> shape(const fp::detail::TensorBase& t) {
  return {t.sizes().begin(), t.sizes().end()};
}

inline std::vector<std::int64_t> strides(const fp::detail::TensorBase& t) {
  return {t.strides().begin(), t.strides().end()};
}

}  // namespace fp_test
