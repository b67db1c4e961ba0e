// fp::Half and fp::BFloat16: 16-bit floats that convert exactly as torch does
// (round to nearest, ties to even; a double is first rounded to float, as
// torch's own conversions do).
#pragma once

#include <bit>
#include <cstdint>
#include <iosfwd>

namespace fp {

/// IEEE 754 binary16, the element type of DType::F16. Python: `torch.float16`.
struct Half {
  /// The 16 bits, as stored in a tensor.
  std::uint16_t bits = 0;

  constexpr Half() = default;
  // Implicit on purpose: converts to and from float like torch.half and torch.bfloat16.
  // NOLINTBEGIN(google-explicit-constructor)
  /// `value` rounded to the nearest binary16 (ties to even), like `torch.tensor(value, dtype=torch.float16)`.
  Half(float value) : bits(from_float(value)) {}
  /// The same from a double, through float.
  Half(double value) : Half(static_cast<float>(value)) {}
  /// The same from an int, through float.
  Half(int value) : Half(static_cast<float>(value)) {}
  /// The value as a float (exact).
  operator float() const { return to_float(bits); }
  // NOLINTEND(google-explicit-constructor)

  /// The Half whose bits are `raw`.
  static constexpr Half from_bits(std::uint16_t raw) {
    Half half;
    half.bits = raw;
    return half;
  }
  /// Bitwise equality (so NaNs compare by their bits).
  friend constexpr bool operator==(Half a, Half b) = default;  // bitwise, for tests

 private:
  static std::uint16_t from_float(float value);
  static float to_float(std::uint16_t bits);
};

/// bfloat16, the element type of DType::BF16. Python: `torch.bfloat16`.
struct BFloat16 {
  /// The 16 bits, as stored in a tensor: the high half of a float32.
  std::uint16_t bits = 0;

  constexpr BFloat16() = default;
  // Implicit on purpose: converts to and from float like torch.half and torch.bfloat16.
  // NOLINTBEGIN(google-explicit-constructor)
  /// `value` rounded to the nearest bfloat16 (ties to even; NaN stays NaN), like torch.
  BFloat16(float value) : bits(from_float(value)) {}
  /// The same from a double, through float.
  BFloat16(double value) : BFloat16(static_cast<float>(value)) {}
  /// The same from an int, through float.
  BFloat16(int value) : BFloat16(static_cast<float>(value)) {}
  /// The value as a float (exact).
  operator float() const { return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16); }
  // NOLINTEND(google-explicit-constructor)

  /// The BFloat16 whose bits are `raw`.
  static constexpr BFloat16 from_bits(std::uint16_t raw) {
    BFloat16 value;
    value.bits = raw;
    return value;
  }
  /// Bitwise equality (so NaNs compare by their bits).
  friend constexpr bool operator==(BFloat16 a, BFloat16 b) = default;

 private:
  static std::uint16_t from_float(float value) {
    const auto word = std::bit_cast<std::uint32_t>(value);
    if ((word & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;  // NaN: torch's canonical quiet NaN
    // Round to nearest even on the 16 bits that are dropped.
    const std::uint32_t rounding = 0x7fffu + ((word >> 16) & 1u);
    return static_cast<std::uint16_t>((word + rounding) >> 16);
  }
};

/// Prints the value as a float.
std::ostream& operator<<(std::ostream& out, Half value);
/// Prints the value as a float.
std::ostream& operator<<(std::ostream& out, BFloat16 value);

}  // namespace fp
