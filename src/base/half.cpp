#include "flash_powder/base/half.h"

#include <cmath>
#include <ostream>

namespace fp {

std::uint16_t Half::from_float(float value) {
  const auto word = std::bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint16_t>((word >> 16) & 0x8000u);
  const std::uint32_t magnitude = word & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return sign | 0x7e00u;   // NaN: torch's canonical quiet NaN
  if (magnitude >= 0x47800000u) return sign | 0x7c00u;  // >= 65536: overflows to infinity
  if (magnitude < 0x38800000u) {
    // Below the smallest normal half (2^-14): a subnormal or zero. Adding 0.5
    // makes the hardware do the round-to-nearest-even on the mantissa for us.
    const float scaled = std::bit_cast<float>(magnitude) + 0.5f;
    return sign | static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(scaled) - 0x3f000000u);
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped bits to
  // nearest even; a carry out of the mantissa correctly bumps the exponent
  // (up to infinity for values just below 65536).
  const std::uint32_t odd = (magnitude >> 13) & 1u;
  const std::uint32_t rounded = magnitude + 0xfffu + odd - (std::uint32_t{112} << 23);
  return sign | static_cast<std::uint16_t>(rounded >> 13);
}

float Half::to_float(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1fu;
  const std::uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0x1f) {  // infinity or NaN
    return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  }
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in float
    const float value = std::ldexp(static_cast<float>(mantissa), -24);
    return sign != 0 ? -value : value;
  }
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

std::ostream& operator<<(std::ostream& out, Half value) {
  return out << static_cast<float>(value);
}

std::ostream& operator<<(std::ostream& out, BFloat16 value) {
  return out << static_cast<float>(value);
}

}  // namespace fp
