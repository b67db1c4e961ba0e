// The C++ element type of each dtype, for typed data access (`data<float>()`).
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>

#include "flash_powder/base/dtype.h"
#include "flash_powder/base/half.h"

namespace fp {

/// Whether T is the element type of a dtype (see dtype_of).
template <class T>
inline constexpr bool has_dtype_v = false;
/// The dtype whose elements are stored as T: `dtype_of<float> == DType::F32`.
template <class T>
inline constexpr DType dtype_of = DType::Bool;

#define FP_ELEMENT_TYPE(T, D)                  \
  template <>                                  \
  inline constexpr bool has_dtype_v<T> = true; \
  template <>                                  \
  inline constexpr DType dtype_of<T> = DType::D;

FP_ELEMENT_TYPE(bool, Bool)
FP_ELEMENT_TYPE(std::uint8_t, U8)
FP_ELEMENT_TYPE(std::uint16_t, U16)
FP_ELEMENT_TYPE(std::uint32_t, U32)
FP_ELEMENT_TYPE(std::uint64_t, U64)
FP_ELEMENT_TYPE(std::int8_t, I8)
FP_ELEMENT_TYPE(std::int16_t, I16)
FP_ELEMENT_TYPE(std::int32_t, I32)
FP_ELEMENT_TYPE(std::int64_t, I64)
FP_ELEMENT_TYPE(Half, F16)
FP_ELEMENT_TYPE(BFloat16, BF16)
FP_ELEMENT_TYPE(float, F32)
FP_ELEMENT_TYPE(double, F64)
FP_ELEMENT_TYPE(std::complex<float>, C64)
FP_ELEMENT_TYPE(std::complex<double>, C128)
#undef FP_ELEMENT_TYPE

/// Types usable with data<T>(), at<T>() and friends.
template <class T>
concept Element = has_dtype_v<std::remove_cv_t<T>>;

}  // namespace fp
