// Interleaved (R, G, B) samples to three planes and back: the one pass a
// [C, H, W] image costs a codec that works in (H, W, C). SIMD where the CPU
// has it (AVX2 or SSSE3 on x86-64, chosen at run time; NEON on aarch64), the same
// bytes either way (internal to the image layer).
#pragma once

#include <cstddef>
#include <cstdint>

namespace fp::image::detail {

/// `count` pixels of `in` (R, G, B, R, G, B, ...) into the planes r, g, b.
void deinterleave3(const std::uint8_t* in, std::uint8_t* r, std::uint8_t* g, std::uint8_t* b,
                   std::size_t count);

/// The planes r, g, b (`count` samples each) into `out` as R, G, B, R, G, B, ...
void interleave3(const std::uint8_t* r, const std::uint8_t* g, const std::uint8_t* b,
                 std::uint8_t* out, std::size_t count);

}  // namespace fp::image::detail
