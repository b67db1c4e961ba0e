// libpng's adaptive filter choice with whole-row AVX2 sums. libpng tries
// each filter byte by byte (and stops one as soon as it cannot win): about a
// quarter of a level-6 encode of a photo. Here the five sums of a row cost
// about 70 instructions per 32 bytes, and libpng applies the one filter
// chosen. The rule is libpng's own, so the file is byte for byte the one
// libpng writes by itself (tests/image/test_encode.cpp checks it against
// libpng's search on every kind of image).
#include "png_filter.h"

#include <png.h>

#include <array>
#include <cstdlib>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define FP_IMAGE_AVX2 1
#endif

namespace fp::image::detail {

namespace {

/// A residual's weight in libpng's sum: its magnitude as a signed byte.
unsigned weight(std::uint8_t v) {
  return v < 128 ? v : 256 - v;
}

std::uint8_t paeth_predictor(int a, int b, int c) {
  const int p = b - c;
  const int q = a - c;
  const int pa = std::abs(p);
  const int pb = std::abs(q);
  const int pc = std::abs(p + q);
  return static_cast<std::uint8_t>(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

/// The sums of None, Sub, Up, Average and Paeth, in that order.
using Sums = std::array<std::uint64_t, 5>;

/// Adds bytes [from, to) to the sums, a byte at a time.
void add_bytes(const std::uint8_t* row, const std::uint8_t* previous, std::size_t bpp,
               std::size_t from, std::size_t to, Sums& sums) {
  for (std::size_t i = from; i < to; ++i) {
    const int x = row[i];
    const int b = previous[i];
    const int a = i >= bpp ? row[i - bpp] : 0;
    const int c = i >= bpp ? previous[i - bpp] : 0;
    sums[0] += weight(static_cast<std::uint8_t>(x));
    sums[1] += weight(static_cast<std::uint8_t>(x - a));
    sums[2] += weight(static_cast<std::uint8_t>(x - b));
    sums[3] += weight(static_cast<std::uint8_t>(x - (a + b) / 2));
    sums[4] += weight(static_cast<std::uint8_t>(x - paeth_predictor(a, b, c)));
  }
}

#if FP_IMAGE_AVX2

bool filters_have_avx2() {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2;
}

__attribute__((target("avx2"))) inline __m256i load(const std::uint8_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

/// Adds the signed-byte magnitudes of 32 residuals to four 64-bit sums.
__attribute__((target("avx2"))) inline __m256i accumulate(__m256i sum, __m256i residual) {
  return _mm256_add_epi64(sum, _mm256_sad_epu8(_mm256_abs_epi8(residual), _mm256_setzero_si256()));
}

/// The Paeth predictor of 16 samples widened to 16 bits.
__attribute__((target("avx2"))) inline __m256i paeth16(__m256i a, __m256i b, __m256i c) {
  const __m256i p = _mm256_sub_epi16(b, c);
  const __m256i q = _mm256_sub_epi16(a, c);
  const __m256i pa = _mm256_abs_epi16(p);
  const __m256i pb = _mm256_abs_epi16(q);
  const __m256i pc = _mm256_abs_epi16(_mm256_add_epi16(p, q));
  const __m256i b_or_c = _mm256_blendv_epi8(b, c, _mm256_cmpgt_epi16(pb, pc));
  const __m256i not_a = _mm256_or_si256(_mm256_cmpgt_epi16(pa, pb), _mm256_cmpgt_epi16(pa, pc));
  return _mm256_blendv_epi8(a, b_or_c, not_a);
}

/// The Paeth predictor of 32 bytes (unpacking and packing within each
/// 128-bit lane keeps the bytes in order).
__attribute__((target("avx2"))) inline __m256i paeth(__m256i a, __m256i b, __m256i c) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256i low = paeth16(_mm256_unpacklo_epi8(a, zero), _mm256_unpacklo_epi8(b, zero),
                              _mm256_unpacklo_epi8(c, zero));
  const __m256i high = paeth16(_mm256_unpackhi_epi8(a, zero), _mm256_unpackhi_epi8(b, zero),
                               _mm256_unpackhi_epi8(c, zero));
  return _mm256_packus_epi16(low, high);
}

/// floor((a + b) / 2) per byte: pavgb rounds up.
__attribute__((target("avx2"))) inline __m256i floor_average(__m256i a, __m256i b) {
  const __m256i odd = _mm256_and_si256(_mm256_xor_si256(a, b), _mm256_set1_epi8(1));
  return _mm256_sub_epi8(_mm256_avg_epu8(a, b), odd);
}

__attribute__((target("avx2"))) inline std::uint64_t total(__m256i sums) {
  alignas(32) std::uint64_t parts[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(parts), sums);
  return parts[0] + parts[1] + parts[2] + parts[3];
}

/// Bytes [bpp, end) in steps of 32; returns where it stopped.
__attribute__((target("avx2"))) std::size_t add_vectors(const std::uint8_t* row,
                                                        const std::uint8_t* previous,
                                                        std::size_t bpp, std::size_t end,
                                                        Sums& sums) {
  __m256i none = _mm256_setzero_si256();
  __m256i sub = none;
  __m256i up = none;
  __m256i average = none;
  __m256i paeths = none;
  std::size_t i = bpp;
  for (; i + 32 <= end; i += 32) {
    const __m256i x = load(row + i);
    const __m256i a = load(row + i - bpp);
    const __m256i b = load(previous + i);
    const __m256i c = load(previous + i - bpp);
    none = accumulate(none, x);
    sub = accumulate(sub, _mm256_sub_epi8(x, a));
    up = accumulate(up, _mm256_sub_epi8(x, b));
    average = accumulate(average, _mm256_sub_epi8(x, floor_average(a, b)));
    paeths = accumulate(paeths, _mm256_sub_epi8(x, paeth(a, b, c)));
  }
  sums[0] += total(none);
  sums[1] += total(sub);
  sums[2] += total(up);
  sums[3] += total(average);
  sums[4] += total(paeths);
  return i;
}

#endif

}  // namespace

bool png_filter_choice_available() {
#if FP_IMAGE_AVX2
  return filters_have_avx2();
#else
  return false;
#endif
}

int choose_png_filter(const std::uint8_t* row, const std::uint8_t* previous, std::size_t row_bytes,
                      std::size_t bpp, int candidates) {
  Sums sums{};
  const std::size_t head = bpp < row_bytes ? bpp : row_bytes;
  add_bytes(row, previous, bpp, 0, head, sums);
  std::size_t done = head;
#if FP_IMAGE_AVX2
  if (filters_have_avx2()) done = add_vectors(row, previous, bpp, row_bytes, sums);
#endif
  add_bytes(row, previous, bpp, done, row_bytes, sums);

  // png_write_find_filter: None's sum is the bar only when None is a
  // candidate among others; a later filter must be strictly better.
  static constexpr int kFilters[5] = {PNG_FILTER_NONE, PNG_FILTER_SUB, PNG_FILTER_UP,
                                      PNG_FILTER_AVG, PNG_FILTER_PAETH};
  int best = PNG_FILTER_NONE;
  std::uint64_t least = UINT64_MAX;
  if ((candidates & PNG_FILTER_NONE) != 0) least = sums[0];
  for (std::size_t k = 1; k < 5; ++k) {
    if ((candidates & kFilters[k]) != 0 && sums[k] < least) {
      least = sums[k];
      best = kFilters[k];
    }
  }
  return best;
}

}  // namespace fp::image::detail
