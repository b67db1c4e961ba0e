// The deterministic factories: empty, zeros, ones, full, arange, linspace,
// eye and their `*_like` forms. (The random ones live in random.cpp.)
#include "flash_powder/core/factory.h"

#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "core/mirrored/arange.h"
#include "flash_powder/aten/aten.h"

namespace fp {
namespace {

void check_sizes(IntList sizes, const char* operation) {
  for (std::int64_t size : sizes) {
    if (size < 0) {
      throw Error(ErrorCode::BadArgument, std::string(operation) +
                                              ": Trying to create tensor with negative dimension " +
                                              std::to_string(size));
    }
  }
}

/// Python's pin_memory=: None unless asked for.
std::optional<bool> pin_memory(const TensorOptions& options) {
  return options.pinned_memory() ? std::optional<bool>(true) : std::nullopt;
}

/// `tensor.to(device)` for freshly made CPU tensors.
Tensor moved_to(Tensor tensor, Device device) {
  if (device.is_cpu()) return tensor;
  return aten::_to_copy(tensor, std::nullopt, std::nullopt, device);
}

/// What torch's checked conversion (c10::checked_convert, used when it fills
/// with a Python number) knows about a target dtype.
struct FillTarget {
  const char* name;  // as torch's message spells the C++ type
  double lowest;
  double highest;
  bool has_infinity;
  bool checked = true;  // false: nothing overflows (bool, float64, complex128)
};

FillTarget fill_target(DType dtype) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  constexpr double float_max = std::numeric_limits<float>::max();
  switch (dtype) {
    case DType::U8:
      return {"uint8_t", 0, 255, false};
    case DType::U16:
      return {"uint16_t", 0, 65535, false};
    case DType::U32:
      return {"uint32_t", 0, 4294967295.0, false};
    case DType::U64:
      return {"uint64_t", 0, 18446744073709551615.0, false};
    case DType::I8:
      return {"int8_t", -128, 127, false};
    case DType::I16:
      return {"int16_t", -32768, 32767, false};
    case DType::I32:
      return {"int", -2147483648.0, 2147483647, false};
    case DType::I64:
      return {"int64_t", -9223372036854775808.0, 9223372036854775807.0, false};
    case DType::F16:
      return {"c10::Half", -65504, 65504, true};
    case DType::BF16:
      return {"c10::BFloat16", -3.3895313892515355e38, 3.3895313892515355e38, true};
    case DType::F32:
      return {"float", -float_max, float_max, true};
    case DType::C32:  // torch fills complex32 through complex<float>
    case DType::C64:
      return {"c10::complex<float>", -float_max, float_max, true};
    case DType::F8_E4M3FN:
      return {"c10::Float8_e4m3fn", -448, 448, false};
    case DType::F8_E5M2:
      return {"c10::Float8_e5m2", -57344, 57344, true};
    case DType::F8_E4M3FNUZ:
      return {"c10::Float8_e4m3fnuz", -240, 240, false};
    case DType::F8_E5M2FNUZ:
      return {"c10::Float8_e5m2fnuz", -57344, 57344, false};
    case DType::F8_E8M0FNU:
      return {"c10::Float8_e8m0fnu", -inf, 1.7014118346046923e38, false};
    default:
      return {"", 0, 0, false, false};
  }
}

/// Mirrors c10::overflows for the value Python's full would convert: floats
/// must lie in the dtype's range (infinity passes where the dtype has one, NaN
/// where it is floating); integers too, except that negative ones may wrap
/// into unsigned dtypes of the same magnitude (-1 fills uint8 with 255).
void check_fill_value(const Tensor& value, DType target, const char* operation) {
  const FillTarget limits = fill_target(target);
  if (!limits.checked || value.dtype() == DType::Bool) return;
  bool overflows = false;
  if (value.dtype() == DType::F64) {
    const double v = value.item<double>();
    if (std::isnan(v)) {
      overflows = is_integral(target);
    } else if (std::isinf(v)) {
      overflows = !limits.has_infinity;
    } else {
      overflows = v < limits.lowest || v > limits.highest;
    }
  } else if (value.dtype() == DType::U64) {
    overflows = static_cast<double>(value.item<std::uint64_t>()) > limits.highest;
  } else {
    const auto v = static_cast<double>(value.item<std::int64_t>());
    const bool wraps = is_integral(target) && !is_signed(target) && v < 0 && -v <= limits.highest;
    overflows = !wraps && (v < limits.lowest || v > limits.highest);
  }
  if (overflows) {
    throw Error(ErrorCode::BadArgument, std::string(operation) +
                                            ": value cannot be converted to type " + limits.name +
                                            " without overflow");
  }
}

}  // namespace

Tensor empty(IntList sizes, TensorOptions options) {
  check_sizes(sizes, "fp::empty");
  return aten::empty_memory_format(sizes, options.dtype_or(DType::F32), options.layout(),
                                   options.device_or(Device::cpu()), pin_memory(options));
}

Tensor zeros(IntList sizes, TensorOptions options) {
  check_sizes(sizes, "fp::zeros");
  return aten::zeros(sizes, options.dtype_or(DType::F32), options.layout(),
                     options.device_or(Device::cpu()), pin_memory(options));
}

Tensor ones(IntList sizes, TensorOptions options) {
  check_sizes(sizes, "fp::ones");
  return aten::ones(sizes, options.dtype_or(DType::F32), options.layout(),
                    options.device_or(Device::cpu()), pin_memory(options));
}

Tensor linspace(double start, double end, std::int64_t steps, TensorOptions options) {
  if (steps < 0)
    throw Error(ErrorCode::BadArgument, "fp::linspace: number of steps must be non-negative");
  // The Tensor_Tensor overload takes the bounds as 0-dim tensors, which the
  // stable ABI can carry; libtorch reads them back as the same doubles.
  return aten::linspace_Tensor_Tensor(tensor(start), tensor(end), steps,
                                      options.dtype_or(DType::F32), options.layout(),
                                      options.device_or(Device::cpu()), pin_memory(options));
}

Tensor eye(std::int64_t n, TensorOptions options) {
  if (n < 0)
    throw Error(ErrorCode::BadArgument,
                "fp::eye: n must be greater or equal to 0, got " + std::to_string(n));
  return aten::eye(n, options.dtype_or(DType::F32), options.layout(),
                   options.device_or(Device::cpu()), pin_memory(options));
}

Tensor eye(std::int64_t n, std::int64_t m, TensorOptions options) {
  if (n < 0)
    throw Error(ErrorCode::BadArgument,
                "fp::eye: n must be greater or equal to 0, got " + std::to_string(n));
  if (m < 0)
    throw Error(ErrorCode::BadArgument,
                "fp::eye: m must be greater or equal to 0, got " + std::to_string(m));
  return aten::eye_m(n, m, options.dtype_or(DType::F32), options.layout(),
                     options.device_or(Device::cpu()), pin_memory(options));
}

Tensor empty_like(TensorView source, TensorOptions options) {
  return aten::empty_like(source, options.dtype(), options.layout(), options.device(),
                          pin_memory(options));
}

Tensor zeros_like(TensorView source, TensorOptions options) {
  return aten::zeros_like(source, options.dtype(), options.layout(), options.device(),
                          pin_memory(options));
}

Tensor ones_like(TensorView source, TensorOptions options) {
  return aten::ones_like(source, options.dtype(), options.layout(), options.device(),
                         pin_memory(options));
}

namespace detail {

Tensor full_impl(IntList sizes, const Tensor& value, DType inferred, TensorOptions options) {
  check_sizes(sizes, "fp::full");
  check_fill_value(value, options.dtype_or(inferred), "fp::full");
  // No Scalar crosses the stable ABI: fill an empty tensor from a 0-dim one,
  // which libtorch converts exactly as it converts Python's fill_value.
  Tensor result = empty(sizes, options.dtype(options.dtype_or(inferred)));
  aten::fill_Tensor_(result, value);
  return result;
}

Tensor full_like_impl(TensorView source, const Tensor& value, TensorOptions options) {
  Tensor result = empty_like(source, options);
  check_fill_value(value, result.dtype(), "fp::full_like");
  aten::fill_Tensor_(result, value);
  return result;
}

// libtorch's arange overloads all take Scalars, which the stable ABI cannot
// carry: the values are computed as its CPU kernel computes them
// (core/mirrored/arange.h), then moved to the device.
Tensor arange_impl(double start, double end, double step, bool integral, TensorOptions options) {
  const DType dtype = options.dtype_or(integral ? DType::I64 : DType::F32);
  return moved_to(mirrored::arange(mirrored::Number::of(start), mirrored::Number::of(end),
                                   mirrored::Number::of(step), dtype),
                  options.device_or(Device::cpu()));
}

Tensor arange_impl(std::int64_t start, std::int64_t end, std::int64_t step, TensorOptions options) {
  const DType dtype = options.dtype_or(DType::I64);
  return moved_to(mirrored::arange(mirrored::Number::of(start), mirrored::Number::of(end),
                                   mirrored::Number::of(step), dtype),
                  options.device_or(Device::cpu()));
}

}  // namespace detail
}  // namespace fp
