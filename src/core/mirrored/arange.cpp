// torch.arange on the CPU, mirrored: aten::arange's overloads all take their
// numbers as Scalars, which the stable ABI cannot carry (libtorch_cpu.h).
//
// Compiled with -ffp-contract=off (src/CMakeLists.txt): the multiply-adds
// libtorch's AVX2/AVX512 builds fuse are spelled out as std::fma below, where
// fuses_multiply_add() says the running build fuses them, and no other may be
// fused.
#include "arange.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "flash_powder/abi/runtime.h"
#include "flash_powder/base/half.h"
#include "flash_powder/core/factory.h"
#include "libtorch_cpu.h"

namespace fp::mirrored {
namespace {

[[noreturn]] void refuse(const std::string& message) {
  throw Error(ErrorCode::BadArgument, "fp::arange: " + message);
}

/// A double as c10's `operator<<` prints it in a TORCH_CHECK message.
std::string printed(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

/// The dtypes arange_cpu dispatches (RangeFactories.cpp, arange_out:
/// AT_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16, ...)).
void check_dtype(DType dtype) {
  switch (dtype) {
    case DType::U8:
    case DType::I8:
    case DType::I16:
    case DType::I32:
    case DType::I64:
    case DType::F16:
    case DType::BF16:
    case DType::F32:
    case DType::F64:
      return;
    default:
      throw Error(ErrorCode::BadArgument, "fp::arange: \"arange_cpu\" not implemented for '" +
                                              std::string(scalar_type_name(dtype)) + "'");
  }
}

// --- c10::Scalar::to<T>(): checked conversions (c10/util/TypeCast.h, checked_convert) ---

double to_double(Number number) {
  return number.integral ? static_cast<double>(number.integer) : number.floating;
}

/// Scalar::to<int64_t>(): a double truncates; one outside int64 (or NaN) is refused.
std::int64_t to_int64(Number number) {
  if (number.integral) return number.integer;
  const double value = number.floating;
  // c10::overflows<int64_t, double>: `f < lowest() || f > max()` with the
  // limits converted to double, and NaN (int64 has no NaN).
  if (std::isnan(value) ||
      value < static_cast<double>(std::numeric_limits<std::int64_t>::lowest()) ||
      value > static_cast<double>(std::numeric_limits<std::int64_t>::max())) {
    refuse("value cannot be converted to type int64_t without overflow");
  }
  if (value >= 0x1p63)
    return std::numeric_limits<std::int64_t>::min();  // what x86-64 converts 2^63 to
  return static_cast<std::int64_t>(value);
}

/// Scalar::to<float>(): infinities and NaN pass; a finite double beyond
/// float's range is refused.
float to_float(Number number) {
  if (number.integral) return static_cast<float>(number.integer);
  const double value = number.floating;
  if (std::isfinite(value) &&
      (value < std::numeric_limits<float>::lowest() || value > std::numeric_limits<float>::max())) {
    refuse("value cannot be converted to type float without overflow");
  }
  return static_cast<float>(value);
}

// --- the size: RangeUtils.h, arange_check_bounds and compute_arange_size ------------------

std::int64_t arange_size(Number start, Number end, Number step, DType dtype) {
  const double dstart = to_double(start);
  const double dend = to_double(end);
  const double dstep = to_double(step);
  static const TorchVersion torch = torch_version();
  // 2.15 added the check of a finite step (an infinite one gave 0 elements).
  if (torch >= TorchVersion{2, 15, 0} && !std::isfinite(dstep)) {
    refuse("step must be finite but got " + printed(dstep));
  }
  if (!(dstep > 0 || dstep < 0)) refuse("step must be nonzero");
  if (!std::isfinite(dstart) || !std::isfinite(dend)) {
    refuse("unsupported range: " + printed(dstart) + " -> " + printed(dend));
  }
  if (!((dstep > 0 && dend >= dstart) || (dstep < 0 && dend <= dstart))) {
    refuse("upper bound and lower bound inconsistent with step sign");
  }
  double size = 0;
  // int64 results count in int64 with the numbers truncated; from 2.14 on
  // only when all three are integers (Scalar::isIntegral), else in double.
  const bool all_integers = start.integral && end.integral && step.integral;
  if (dtype == DType::I64 && (all_integers || torch < TorchVersion{2, 14, 0})) {
    const std::int64_t xstart = to_int64(start);
    const std::int64_t xend = to_int64(end);
    const std::int64_t xstep = to_int64(step);
    // (torch 2.11 and 2.12 divide by this zero and die of SIGFPE; 2.13 checks it.)
    if (xstep == 0) refuse("step must be nonzero");
    const std::int64_t sign = (xstep > 0) - (xstep < 0);
    // `(xend - xstart + xstep - sgn) / xstep` in int64 (wrapping as libtorch's build does).
    const auto numerator = static_cast<std::int64_t>(
        static_cast<std::uint64_t>(xend) - static_cast<std::uint64_t>(xstart) +
        static_cast<std::uint64_t>(xstep) - static_cast<std::uint64_t>(sign));
    // An integer division; torch's std::ceil of its result changes nothing.
    // (INT64_MIN / -1 overflows: torch dies of SIGFPE, here the size is 2^63.)
    const bool overflows = numerator == std::numeric_limits<std::int64_t>::min() && xstep == -1;
    const std::int64_t quotient = overflows ? 0 : numerator / xstep;
    size = overflows ? 0x1p63 : static_cast<double>(quotient);
  } else {
    size = std::ceil((dend - dstart) / dstep);
  }
  // torch's bound is static_cast<double>(INT64_MAX), which is 2^63: no int64
  // holds that one, so it is refused too.
  if (!(size >= 0 && size < 0x1p63)) refuse("invalid size, possible overflow?");
  return static_cast<std::int64_t>(size);
}

// --- the values: RangeFactoriesKernel.cpp, arange_kernel -----------------------------------
//
// The kernel of the build arange_stub dispatches to (kernel_build(): under
// AVX512 the AVX2 one). at::parallel_for(0, size, GRAIN_SIZE) splits
// [0, size) into chunks; each runs cpu_serial_kernel_vec over its chunk with
// `idx` starting at the chunk's start. Its vectorised loop fills whole pairs of vectors, each
// vector as Vectorized<T>::arange(start + step * idx, step): the base
// `start + step * idx` computed in the accumulation type and rounded to T,
// lane k holding `base + k * step` (in the accumulation type, rounded to T;
// vec256/vec512 *_float.h, *_double.h, 16bit_float.h, bfloat16.h, and
// vec_base.h for the generic build). The rest of the chunk is filled one
// element at a time with `start + step * idx`. The accumulation type
// (at::acc_type<T, false>, ATen/AccumulateType.h) is double for float and
// double, float for Half and BFloat16, int64 for the integers.

template <class T>
T multiply_add(T a, T b, T c, bool fused) {
  return fused ? std::fma(a, b, c) : a * b + c;
}

template <class Stored, class Accumulated>
void fill_floating(Stored* out, Accumulated start, Accumulated step, std::int64_t size) {
  const Capability build = kernel_build(Stub::Arange);
  const std::int64_t lanes = vector_lanes<Stored>(build);
  const bool fused = fuses_multiply_add(build);
  const auto at = [](std::int64_t index) { return static_cast<Accumulated>(index); };
  for (const Chunk chunk : parallel_chunks(size)) {
    const std::int64_t vector_end = vectorised_end(chunk, lanes);
    std::int64_t i = chunk.begin;
    for (; i < vector_end; i += lanes) {
      const auto base = static_cast<Stored>(multiply_add(step, at(i), start, fused));
      out[i] = base;
      for (std::int64_t lane = 1; lane < lanes; ++lane) {
        out[i + lane] = static_cast<Stored>(
            multiply_add(at(lane), step, static_cast<Accumulated>(base), fused));
      }
    }
    for (; i < chunk.end; ++i)
      out[i] = static_cast<Stored>(multiply_add(step, at(i), start, fused));
  }
}

/// Integers are exact whatever the split: (start + step * i) in int64,
/// wrapping, then converted to T (modulo 2^bits) as the kernel stores it.
template <class T>
void fill_integers(T* out, std::int64_t start, std::int64_t step, std::int64_t size) {
  for (std::int64_t i = 0; i < size; ++i) {
    out[i] = static_cast<T>(static_cast<std::uint64_t>(start) +
                            static_cast<std::uint64_t>(step) * static_cast<std::uint64_t>(i));
  }
}

template <class T>
T* data_of(Tensor& tensor) {
  return tensor.data_mut<T>().data();
}

}  // namespace

Tensor arange(Number start, Number end, Number step, DType dtype) {
  check_dtype(dtype);
  const std::int64_t size = arange_size(start, end, step, dtype);
  Tensor result = empty({size}, dtype);
  // The kernel converts start and step to the accumulation type even when
  // there is nothing to fill.
  switch (dtype) {
    case DType::F32:
      fill_floating(data_of<float>(result), to_double(start), to_double(step), size);
      break;
    case DType::F64:
      fill_floating(data_of<double>(result), to_double(start), to_double(step), size);
      break;
    case DType::F16:
      fill_floating(data_of<Half>(result), to_float(start), to_float(step), size);
      break;
    case DType::BF16:
      fill_floating(data_of<BFloat16>(result), to_float(start), to_float(step), size);
      break;
    case DType::U8:
      fill_integers(data_of<std::uint8_t>(result), to_int64(start), to_int64(step), size);
      break;
    case DType::I8:
      fill_integers(data_of<std::int8_t>(result), to_int64(start), to_int64(step), size);
      break;
    case DType::I16:
      fill_integers(data_of<std::int16_t>(result), to_int64(start), to_int64(step), size);
      break;
    case DType::I32:
      fill_integers(data_of<std::int32_t>(result), to_int64(start), to_int64(step), size);
      break;
    default:  // I64 (check_dtype refused the rest)
      fill_integers(data_of<std::int64_t>(result), to_int64(start), to_int64(step), size);
      break;
  }
  return result;
}

}  // namespace fp::mirrored
