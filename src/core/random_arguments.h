// The argument checks of fp::rand, fp::randn and fp::randint (core/factory.h).
#pragma once

#include <cstdint>
#include <string_view>

#include "flash_powder/base/dtype.h"
#include "flash_powder/core/tensor.h"

namespace fp::detail {

/// [low, high) as randint draws it.
struct IntegerRange {
  std::int64_t low;
  std::int64_t high;
};

/// The number of elements of `sizes`; throws on a negative size (as torch's
/// "Trying to create tensor with negative dimension") or an int64 overflow.
std::int64_t checked_numel(std::string_view op, IntList sizes);
/// Throws unless rand/randn can fill `dtype` (a floating or complex dtype).
void check_real_or_complex(std::string_view op, DType dtype);
/// The real dtype a complex dtype is made of (the dtype itself otherwise).
DType real_part_dtype(DType dtype);
/// randint's [low, high) after torch's checks and adjustments for `dtype`.
IntegerRange checked_randint_range(std::string_view op, std::int64_t low, std::int64_t high,
                                   DType dtype);
/// Throws if a `*_like` factory's source is undefined.
void check_defined(std::string_view op, TensorView source);

}  // namespace fp::detail
