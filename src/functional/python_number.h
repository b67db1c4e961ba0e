// How fp::functional hands a Python number to an ATen op.
#pragma once

#include "flash_powder/core/factory.h"

namespace fp::functional::detail {

/// A number as Python hands it to the kernels: a 0-dim float64 tensor.
inline Tensor python_number(double value) {
  return tensor(value, DType::F64);
}

}  // namespace fp::functional::detail
