// fp::Scalar: a C++ number where PyTorch takes a Python number.
//
// `t + 1`, `t * 2.5`, `fp::clamp(t, 0, 6)`: libtorch's stable ABI cannot pass a
// number to an op (no `Scalar` crosses it in torch 2.13), so a number becomes
// a 0-dim tensor chosen such that type promotion gives exactly what Python
// gives for a Python number ("wrapped numbers"):
//
//   number kind  tensor dtype           0-dim tensor used      example (Python's result)
//   bool         any                    bool                   bool_t + True -> bool
//   integer      any                    int64                  uint8_t + 300 -> uint8 (wraps),
//                                                              bool_t + 1 -> int64
//   floating     floating or complex    float64                f16_t * 3.5 -> float16
//   floating     bool or integer        float32 (default)      i32_t + 2.5 -> float32
//   complex      floating or complex    complex128             f16_t * 1i -> complex32,
//                                                              c64_t * 1i -> complex64
//   complex      bool or integer        complex64 (default)    i32_t * 1i -> complex64
//
// A 0-dim tensor never promotes a dimensioned tensor of its own category, and
// libtorch reads it as the same double or int64 a Python number would be.
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>

#include "flash_powder/base/dtype.h"

namespace fp {

class Tensor;

/// A number passed where PyTorch takes a Python number: bool, integer, floating or complex,
/// as the C++ type of the value says. Next to a tensor it becomes the 0-dim tensor Python
/// would make of it (the table at the top of core/scalar.h), so type promotion matches Python's.
class Scalar {
 public:
  /// What kind of number it holds: Python's bool, int, float or complex.
  enum class Kind : std::uint8_t { Bool, Integer, Floating, Complex };

  // Implicit on purpose: like a Python number.
  // NOLINTBEGIN(google-explicit-constructor)
  /// A bool.
  Scalar(bool value) : kind_(Kind::Bool), integer_(value) {}
  /// An integer (a uint64 above INT64_MAX throws fp::Error).
  template <class T>
  requires(std::is_integral_v<T> && !std::is_same_v<T, bool>) Scalar(T value)
      : kind_(Kind::Integer), integer_(static_cast<std::int64_t>(value)) {
    if constexpr (std::is_unsigned_v<T> && sizeof(T) == 8) check_fits_int64(value);
  }
  /// A floating-point number.
  template <class T>
  requires std::is_floating_point_v<T> Scalar(T value)
      : kind_(Kind::Floating), real_(static_cast<double>(value)) {}
  /// A complex number.
  template <class T>
  Scalar(std::complex<T> value)
      : kind_(Kind::Complex),
        real_(static_cast<double>(value.real())),
        imaginary_(static_cast<double>(value.imag())) {}
  // NOLINTEND(google-explicit-constructor)

  /// What kind of number it holds.
  Kind kind() const { return kind_; }
  /// The value as a bool (for Kind::Bool).
  bool to_bool() const { return integer_ != 0; }
  /// The value as an integer (for Kind::Bool and Kind::Integer).
  std::int64_t to_int() const { return integer_; }
  /// The value as a double (the real part of a complex).
  double to_double() const {
    return kind_ == Kind::Floating || kind_ == Kind::Complex ? real_
                                                             : static_cast<double>(integer_);
  }
  /// The value as a complex number.
  std::complex<double> to_complex() const { return {to_double(), imaginary_}; }

  /// The 0-dim CPU tensor standing in for this number next to a tensor of
  /// `other` dtype (see the table above).
  Tensor as_tensor_beside(DType other) const;
  /// The 0-dim tensor for this number on its own (float numbers as float32,
  /// like `torch.tensor(2.5)`).
  Tensor as_tensor() const;

 private:
  static void check_fits_int64(std::uint64_t value);

  Kind kind_;
  std::int64_t integer_ = 0;
  double real_ = 0;
  double imaginary_ = 0;
};

}  // namespace fp
