// torch.arange on the CPU, mirrored (libtorch_cpu.h says why).
#pragma once

#include <cstdint>

#include "flash_powder/base/dtype.h"
#include "flash_powder/core/tensor.h"

namespace fp::mirrored {

/// A number as a c10::Scalar holds one: an integer or a double (Python's
/// int or float argument).
struct Number {
  bool integral = false;
  std::int64_t integer = 0;
  double floating = 0.0;

  static Number of(std::int64_t value) { return {true, value, 0.0}; }
  static Number of(double value) { return {false, 0, value}; }
};

/// torch.arange(start, end, step, dtype=dtype) as a CPU tensor, bit for bit
/// as the running libtorch computes it: its checks and size
/// (aten/src/ATen/native/RangeUtils.h, compute_arange_size, as the loaded
/// torch release has it) and its values (arange_kernel of
/// aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp, for the running CPU
/// capability and thread count). dtype: those arange_cpu dispatches
/// (AT_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16): uint8, int8, int16, int32,
/// int64, float16, bfloat16, float32, float64); others throw, as torch does.
/// Errors say "fp::arange: " and torch's words.
Tensor arange(Number start, Number end, Number step, DType dtype);

}  // namespace fp::mirrored
