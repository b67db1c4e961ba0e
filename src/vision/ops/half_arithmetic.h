// float16 as torchvision's CPU kernels compute with it (c10::Half,
// c10/util/Half-inl.h): each operation of two halves in float, rounded back
// to half; a double minus a half is a double.
#pragma once

#include <cstdint>
#include <type_traits>

#include "flash_powder/base/half.h"

namespace fp::vision::ops::detail {

/// A float16 whose arithmetic rounds after every operation, as c10::Half's.
struct HalfArithmetic {
  Half value;

  HalfArithmetic() = default;
  // Implicit on purpose: converts as c10::Half does.
  // NOLINTBEGIN(google-explicit-constructor)
  /// From a stored element.
  HalfArithmetic(Half stored) : value(stored) {}
  /// Rounded to the nearest half.
  HalfArithmetic(float number) : value(number) {}
  /// Through float, as c10::Half.
  HalfArithmetic(double number) : value(number) {}
  /// Through float.
  HalfArithmetic(int number) : value(number) {}
  /// Through float.
  HalfArithmetic(std::int64_t number) : value(static_cast<float>(number)) {}
  /// The value (exact).
  operator float() const { return value; }
  // NOLINTEND(google-explicit-constructor)
};

inline HalfArithmetic operator+(HalfArithmetic a, HalfArithmetic b) {
  return static_cast<float>(a) + static_cast<float>(b);
}
inline HalfArithmetic operator-(HalfArithmetic a, HalfArithmetic b) {
  return static_cast<float>(a) - static_cast<float>(b);
}
inline HalfArithmetic operator*(HalfArithmetic a, HalfArithmetic b) {
  return static_cast<float>(a) * static_cast<float>(b);
}
inline HalfArithmetic operator/(HalfArithmetic a, HalfArithmetic b) {
  return static_cast<float>(a) / static_cast<float>(b);
}
inline HalfArithmetic& operator+=(HalfArithmetic& a, HalfArithmetic b) {
  return a = a + b;
}
inline HalfArithmetic& operator/=(HalfArithmetic& a, HalfArithmetic b) {
  return a = a / b;
}
/// c10: a double and a half give a double.
inline double operator-(double a, HalfArithmetic b) {
  return a - static_cast<float>(b);
}

/// The type a kernel computes in for elements of type S.
template <class S>
using Compute = std::conditional_t<std::is_same_v<S, Half>, HalfArithmetic, S>;

/// `value` as an element of type S.
template <class S, class T>
S stored(T value) {
  if constexpr (std::is_same_v<S, T>) {
    return value;
  } else {
    return value.value;
  }
}

}  // namespace fp::vision::ops::detail
