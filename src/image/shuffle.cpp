// (H, W, 3) <-> [3, H, W] byte shuffles. GCC at -O2 leaves the stride-3 loops
// scalar (a byte at a time); with pshufb (SSSE3) sixteen pixels are nine
// shuffles, with AVX2 thirty-two pixels are nine. The baseline is plain
// x86-64, so the instruction set is picked at run time.
#include "shuffle.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define FP_IMAGE_SSSE3 1
#elif defined(__aarch64__)
#include <arm_neon.h>
#define FP_IMAGE_NEON 1
#endif

namespace fp::image::detail {

namespace {

void deinterleave3_scalar(const std::uint8_t* in, std::uint8_t* r, std::uint8_t* g, std::uint8_t* b,
                          std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    r[i] = in[3 * i];
    g[i] = in[3 * i + 1];
    b[i] = in[3 * i + 2];
  }
}

void interleave3_scalar(const std::uint8_t* r, const std::uint8_t* g, const std::uint8_t* b,
                        std::uint8_t* out, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    out[3 * i] = r[i];
    out[3 * i + 1] = g[i];
    out[3 * i + 2] = b[i];
  }
}

#if FP_IMAGE_SSSE3

/// pshufb masks for 16 pixels (48 bytes in three vectors); -128 writes a zero.
struct Masks {
  // deinterleave[k][v]: channel k's bytes taken from input vector v.
  alignas(16) std::int8_t deinterleave[3][3][16];
  // interleave[v][k]: output vector v's bytes taken from plane k.
  alignas(16) std::int8_t interleave[3][3][16];

  constexpr Masks() : deinterleave{}, interleave{} {
    for (int k = 0; k < 3; ++k) {
      for (int v = 0; v < 3; ++v) {
        for (int j = 0; j < 16; ++j) {
          const int source = 3 * j + k;  // deinterleave: plane k, pixel j
          deinterleave[k][v][j] = static_cast<std::int8_t>(source / 16 == v ? source % 16 : -128);
          const int target = 16 * v + j;  // interleave: output byte 16v + j
          interleave[v][k][j] = static_cast<std::int8_t>(target % 3 == k ? target / 3 : -128);
        }
      }
    }
  }
};

constexpr Masks kMasks;

__attribute__((target("ssse3"))) inline __m128i mask(const std::int8_t (&m)[16]) {
  return _mm_load_si128(reinterpret_cast<const __m128i*>(m));
}

__attribute__((target("ssse3"))) void deinterleave3_ssse3(const std::uint8_t* in, std::uint8_t* r,
                                                          std::uint8_t* g, std::uint8_t* b,
                                                          std::size_t count) {
  std::uint8_t* planes[3] = {r, g, b};
  std::size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m128i v0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 3 * i));
    const __m128i v1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 3 * i + 16));
    const __m128i v2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 3 * i + 32));
    for (std::size_t k = 0; k < 3; ++k) {
      const __m128i plane =
          _mm_or_si128(_mm_or_si128(_mm_shuffle_epi8(v0, mask(kMasks.deinterleave[k][0])),
                                    _mm_shuffle_epi8(v1, mask(kMasks.deinterleave[k][1]))),
                       _mm_shuffle_epi8(v2, mask(kMasks.deinterleave[k][2])));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(planes[k] + i), plane);
    }
  }
  deinterleave3_scalar(in + 3 * i, r + i, g + i, b + i, count - i);
}

__attribute__((target("ssse3"))) void interleave3_ssse3(const std::uint8_t* r,
                                                        const std::uint8_t* g,
                                                        const std::uint8_t* b, std::uint8_t* out,
                                                        std::size_t count) {
  std::size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m128i planes[3] = {_mm_loadu_si128(reinterpret_cast<const __m128i*>(r + i)),
                               _mm_loadu_si128(reinterpret_cast<const __m128i*>(g + i)),
                               _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i))};
    for (std::size_t v = 0; v < 3; ++v) {
      const __m128i bytes =
          _mm_or_si128(_mm_or_si128(_mm_shuffle_epi8(planes[0], mask(kMasks.interleave[v][0])),
                                    _mm_shuffle_epi8(planes[1], mask(kMasks.interleave[v][1]))),
                       _mm_shuffle_epi8(planes[2], mask(kMasks.interleave[v][2])));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 3 * i + 16 * v), bytes);
    }
  }
  interleave3_scalar(r + i, g + i, b + i, out + 3 * i, count - i);
}

/// The nine masks of one direction in registers, each in both 128-bit
/// lanes: loaded once per call rather than once per step (the loop is
/// then 28 instructions per 32 pixels instead of 57).
struct LaneMasks {
  __m256i m[3][3];

  __attribute__((target("avx2"))) explicit LaneMasks(const std::int8_t (&table)[3][3][16]) {
    for (std::size_t a = 0; a < 3; ++a) {
      for (std::size_t b = 0; b < 3; ++b)
        m[a][b] = _mm256_broadcastsi128_si256(mask(table[a][b]));
    }
  }
};

/// vpshufb each of three vectors with its mask and merge: the bytes that
/// come from different vectors never overlap (the others are zeroed).
__attribute__((target("avx2"))) inline __m256i gather3(const __m256i (&v)[3],
                                                       const __m256i (&m)[3]) {
  return _mm256_or_si256(
      _mm256_or_si256(_mm256_shuffle_epi8(v[0], m[0]), _mm256_shuffle_epi8(v[1], m[1])),
      _mm256_shuffle_epi8(v[2], m[2]));
}

/// Bytes [0, 16) of `p` in the low lane, [48, 64) in the high one.
__attribute__((target("avx2"))) inline __m256i two_lanes(const std::uint8_t* p) {
  return _mm256_inserti128_si256(
      _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))),
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 48)), 1);
}

/// AVX2: two 48-byte groups at once, one in each 128-bit lane (vpshufb
/// shuffles within lanes), so that each lane does what one SSSE3 step does
/// and the 32 samples of a plane come out in order.
__attribute__((target("avx2"))) void deinterleave3_avx2(const std::uint8_t* in, std::uint8_t* r,
                                                        std::uint8_t* g, std::uint8_t* b,
                                                        std::size_t count) {
  const LaneMasks masks(kMasks.deinterleave);
  std::size_t i = 0;
  for (; i + 32 <= count; i += 32) {
    const std::uint8_t* p = in + 3 * i;
    const __m256i v[3] = {two_lanes(p), two_lanes(p + 16), two_lanes(p + 32)};
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(r + i), gather3(v, masks.m[0]));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(g + i), gather3(v, masks.m[1]));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(b + i), gather3(v, masks.m[2]));
  }
  deinterleave3_ssse3(in + 3 * i, r + i, g + i, b + i, count - i);
}

__attribute__((target("avx2"))) void interleave3_avx2(const std::uint8_t* r, const std::uint8_t* g,
                                                      const std::uint8_t* b, std::uint8_t* out,
                                                      std::size_t count) {
  const LaneMasks masks(kMasks.interleave);
  std::size_t i = 0;
  for (; i + 32 <= count; i += 32) {
    const __m256i planes[3] = {_mm256_loadu_si256(reinterpret_cast<const __m256i*>(r + i)),
                               _mm256_loadu_si256(reinterpret_cast<const __m256i*>(g + i)),
                               _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i))};
    std::uint8_t* o = out + 3 * i;
    for (std::size_t v = 0; v < 3; ++v) {
      const __m256i bytes = gather3(planes, masks.m[v]);
      // The low lane holds bytes of pixels 0-15, the high lane those of 16-31.
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + 16 * v), _mm256_castsi256_si128(bytes));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o + 48 + 16 * v),
                       _mm256_extracti128_si256(bytes, 1));
    }
  }
  interleave3_ssse3(r + i, g + i, b + i, out + 3 * i, count - i);
}

bool has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

bool has_ssse3() {
  static const bool has = __builtin_cpu_supports("ssse3");
  return has;
}

#endif

}  // namespace

void deinterleave3(const std::uint8_t* in, std::uint8_t* r, std::uint8_t* g, std::uint8_t* b,
                   std::size_t count) {
#if FP_IMAGE_SSSE3
  if (has_avx2()) return deinterleave3_avx2(in, r, g, b, count);
  if (has_ssse3()) return deinterleave3_ssse3(in, r, g, b, count);
#elif FP_IMAGE_NEON
  std::size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const uint8x16x3_t v = vld3q_u8(in + 3 * i);
    vst1q_u8(r + i, v.val[0]);
    vst1q_u8(g + i, v.val[1]);
    vst1q_u8(b + i, v.val[2]);
  }
  in += 3 * i, r += i, g += i, b += i, count -= i;
#endif
  deinterleave3_scalar(in, r, g, b, count);
}

void interleave3(const std::uint8_t* r, const std::uint8_t* g, const std::uint8_t* b,
                 std::uint8_t* out, std::size_t count) {
#if FP_IMAGE_SSSE3
  if (has_avx2()) return interleave3_avx2(r, g, b, out, count);
  if (has_ssse3()) return interleave3_ssse3(r, g, b, out, count);
#elif FP_IMAGE_NEON
  std::size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    vst3q_u8(out + 3 * i, uint8x16x3_t{{vld1q_u8(r + i), vld1q_u8(g + i), vld1q_u8(b + i)}});
  }
  r += i, g += i, b += i, out += 3 * i, count -= i;
#endif
  interleave3_scalar(r, g, b, out, count);
}

}  // namespace fp::image::detail
