// The argument checks of the random factories: sizes, dtypes and randint's
// range, in the order torch checks them so that the same input fails on the
// same condition.
#include "random_arguments.h"
#include "base/text.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "flash_powder/base/half.h"

namespace fp::detail {

namespace {

std::string sizes_text(IntList sizes) {
  return list_text(sizes);
}

/// The mantissa digits of a floating dtype, as std::numeric_limits counts them.
int mantissa_digits(DType dtype) {
  switch (dtype) {
    case DType::F16:
      return 11;
    case DType::BF16:
      return 8;
    case DType::F32:
      return 24;
    default:
      return 53;
  }
}

/// The conversion of x86's cvttsd2si, which torch's static_cast<int64_t> of a
/// float compiles to: out of range (or NaN) gives INT64_MIN.
std::int64_t truncated_like_x86(double value) {
  constexpr double two_to_63 = 9223372036854775808.0;
  if (!(value >= -two_to_63 && value < two_to_63)) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(value);
}

/// `static_cast<int64_t>(static_cast<scalar_t>(value))` for a floating dtype;
/// int64 reaches float16 and bfloat16 through float, as c10::Half does.
std::int64_t rounded_through(DType dtype, std::int64_t value) {
  const auto as_float = static_cast<float>(value);
  switch (dtype) {
    case DType::F16:
      return truncated_like_x86(static_cast<float>(Half(as_float)));
    case DType::BF16:
      return truncated_like_x86(static_cast<float>(BFloat16(as_float)));
    case DType::F32:
      return truncated_like_x86(as_float);
    default:
      return truncated_like_x86(static_cast<double>(value));
  }
}

/// The distance from a power of two to the next representable value of a
/// floating dtype above `magnitude` (torch's `1 << (n - digits + 1)`).
std::int64_t spacing_above(std::int64_t magnitude, DType dtype) {
  int log2 = 0;
  while (magnitude >>= 1)
    ++log2;
  const int shift = log2 - mantissa_digits(dtype) + 1;
  return shift <= 0 ? 1 : (std::int64_t{1} << shift);
}

/// torch's update_from: when low + 1 is not representable in a floating dtype,
/// low moves up to the next value that is.
std::int64_t representable_low(std::int64_t low, DType dtype) {
  const std::int64_t rounded = rounded_through(dtype, low + 1);
  if (rounded >= low) return low;
  return static_cast<std::int64_t>(
      static_cast<std::uint64_t>(rounded) +
      static_cast<std::uint64_t>(spacing_above(std::abs(low + 1), dtype)));
}

/// torch's update_to: the mirror image of representable_low for high - 1.
std::int64_t representable_high(std::int64_t high, DType dtype) {
  const std::int64_t rounded = rounded_through(dtype, high - 1);
  if (rounded < high) return high;
  return static_cast<std::int64_t>(
      static_cast<std::uint64_t>(rounded) -
      static_cast<std::uint64_t>(spacing_above(std::abs(high - 1), dtype)));
}

struct IntegerBounds {
  double lowest;
  double highest;
};

/// The values randint may produce in `dtype` (torch's check_from_to_in_range;
/// uint64 stops at INT64_MAX because low and high are int64).
std::optional<IntegerBounds> randint_bounds(DType dtype) {
  constexpr double int64_max = 9223372036854775807.0;
  switch (dtype) {
    case DType::Bool:
      return IntegerBounds{0, 1};
    case DType::U8:
      return IntegerBounds{0, 255};
    case DType::U16:
      return IntegerBounds{0, 65535};
    case DType::U32:
      return IntegerBounds{0, 4294967295.0};
    case DType::U64:
      return IntegerBounds{0, int64_max};
    case DType::I8:
      return IntegerBounds{-128, 127};
    case DType::I16:
      return IntegerBounds{-32768, 32767};
    case DType::I32:
      return IntegerBounds{-2147483648.0, 2147483647.0};
    case DType::I64:
      return IntegerBounds{-int64_max - 1, int64_max};
    case DType::F16:
      return IntegerBounds{-65504, 65504};
    case DType::BF16:
      return IntegerBounds{-3.3895313892515355e38, 3.3895313892515355e38};
    case DType::F32:
      return IntegerBounds{-std::numeric_limits<float>::max(), std::numeric_limits<float>::max()};
    case DType::F64:
      return IntegerBounds{-std::numeric_limits<double>::max(), std::numeric_limits<double>::max()};
    default:
      return std::nullopt;
  }
}

/// A bound of a dtype's range in an error message.
std::string bound_text(double bound) {
  if (std::abs(bound) < 9.2e18) return std::to_string(static_cast<std::int64_t>(bound));
  return bound < 0 ? "-" + std::to_string(-bound) : std::to_string(bound);
}

}  // namespace

/// The number of elements of `sizes`; throws on a negative size (as torch's
/// "Trying to create tensor with negative dimension") or an int64 overflow.
std::int64_t checked_numel(std::string_view op, IntList sizes) {
  std::int64_t count = 1;
  for (const std::int64_t size : sizes) {
    if (size < 0) {
      throw Error(ErrorCode::BadArgument, std::string(op) + ": negative dimension " +
                                              std::to_string(size) + " in sizes " +
                                              sizes_text(sizes) + "; every size must be >= 0");
    }
    if (__builtin_mul_overflow(count, size, &count)) {
      throw Error(ErrorCode::BadArgument, std::string(op) + ": sizes " + sizes_text(sizes) +
                                              " hold more elements than int64 can count");
    }
  }
  return count;
}

/// rand and randn fill floating-point and complex dtypes only (torch's
/// uniform_ and normal_ kernels dispatch on float16, bfloat16, float32,
/// float64 and their complex pairs; float8 types are not implemented).
void check_real_or_complex(std::string_view op, DType dtype) {
  switch (dtype) {
    case DType::F16:
    case DType::BF16:
    case DType::F32:
    case DType::F64:
    case DType::C32:
    case DType::C64:
    case DType::C128:
      return;
    default:
      throw Error(ErrorCode::BadArgument,
                  std::string(op) + ": cannot sample dtype " + std::string(name(dtype)) +
                      "; use float16, bfloat16, float32, float64 or a complex dtype" +
                      (is_integral(dtype, true) ? " (fp::randint samples integers)" : ""));
  }
}

/// The real dtype a complex dtype is made of; torch samples complex tensors
/// through view_as_real.
DType real_part_dtype(DType dtype) {
  switch (dtype) {
    case DType::C32:
      return DType::F16;
    case DType::C64:
      return DType::F32;
    case DType::C128:
      return DType::F64;
    default:
      return dtype;
  }
}

/// The range after torch's checks and adjustments in random_from_to_impl (in
/// its order, so the same input fails on the same condition).
IntegerRange checked_randint_range(std::string_view op, std::int64_t low, std::int64_t high,
                                   DType dtype) {
  const std::string prefix(op);
  const auto bounds = randint_bounds(dtype);
  if (!bounds) {
    throw Error(ErrorCode::BadArgument,
                prefix + ": cannot sample integers into dtype " + std::string(name(dtype)) +
                    "; use an integer, floating-point (not float8) or bool dtype");
  }
  if (low >= high) {
    throw Error(ErrorCode::BadArgument,
                prefix + ": low must be less than high, but got low=" + std::to_string(low) +
                    " >= high=" + std::to_string(high));
  }
  IntegerRange range{low, high};
  if (is_floating_point(dtype)) {
    range = {representable_low(low, dtype), representable_high(high, dtype)};
    if (range.low >= range.high) {
      throw Error(ErrorCode::BadArgument,
                  prefix + ": [" + std::to_string(low) + ", " + std::to_string(high) +
                      ") holds no value of dtype " + std::string(name(dtype)) +
                      " once rounded to it: low=" + std::to_string(range.low) +
                      " >= high=" + std::to_string(range.high));
    }
  }
  const auto fits = [&](std::int64_t value) {
    return static_cast<double>(value) >= bounds->lowest &&
           static_cast<double>(value) <= bounds->highest;
  };
  if (!fits(range.low) || !fits(range.high - 1)) {
    throw Error(ErrorCode::BadArgument,
                prefix + ": [low, high) = [" + std::to_string(low) + ", " + std::to_string(high) +
                    ") does not fit dtype " + std::string(name(dtype)) + ", which holds [" +
                    bound_text(bounds->lowest) + ", " + bound_text(bounds->highest) + "]");
  }
  return range;
}

void check_defined(std::string_view op, TensorView source) {
  if (!source.is_defined())
    throw Error(ErrorCode::BadArgument, std::string(op) + ": the source tensor is undefined");
}

}  // namespace fp::detail
