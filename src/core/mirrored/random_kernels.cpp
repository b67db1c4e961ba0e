// The sampling kernels behind fp::rand, fp::randn and fp::randint with an
// fp::Generator: torch's CPU kernels (aten/src/ATen/native/cpu/
// DistributionTemplates.h, core/DistributionsHelper.h), mirrored so that the
// numbers equal Python's `torch.rand(..., generator=g)` bit for bit. The
// stable ABI cannot create a torch.Generator (libtorch_cpu.h). All of these
// kernels are serial (cpu_serial_kernel, or normal_fill's plain loops), so
// neither the thread count nor the vector width changes their bits; only
// randn's normal_fill depends on the running capability, through
// kernel_build(Stub::Normal) (libtorch_cpu.h).
//
// Why this file is long: each sampling kernel (uniform, normal with its two
// vectorised forms, random_from_to for four dtypes) is a mirror of a torch
// kernel that must be read beside its source line by line; split apart, the
// shared transforms they call would have to be public to each other.
//
// Bit-exactness depends on rounding each operation exactly as torch's compiled
// kernels do, so the mirrored kernels are compiled with -ffp-contract=off (see
// src/CMakeLists.txt): the multiply-adds torch's build fuses are spelled out
// as std::fma below, and no others may be fused.
#include "random_kernels.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <type_traits>
#include <vector>

#include "flash_powder/abi/runtime.h"
#include "libtorch_cpu.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace fp::mirrored {

namespace {

// --- uniform samples: torch's uniform_real_distribution -------------------------------

/// A float in [0, 1) from the low 24 bits of one draw.
float uniform_float(Generator& generator) {
  constexpr float scale = 1.0f / static_cast<float>(1U << 24);
  return static_cast<float>(generator.random() & 0xffffffU) * scale;
}

/// A double in [0, 1) from the low 53 bits of a 64-bit draw.
double uniform_double(Generator& generator) {
  constexpr double scale = 1.0 / static_cast<double>(std::uint64_t{1} << 53);
  return static_cast<double>(generator.random64() & ((std::uint64_t{1} << 53) - 1)) * scale;
}

/// Whether the loaded torch samples float16/bfloat16 in their own precision,
/// as torch before 2.12 did: uniforms from the low 11 (float16) or 8
/// (bfloat16) bits of a draw, and randn's Box-Muller in that precision. From
/// 2.12 on both sample in float and round the result.
bool torch_samples_reduced_floats_natively() {
  static const bool native = torch_version() < TorchVersion{2, 12, 0};
  return native;
}

/// torch < 2.12's uniform_real_distribution<T> for float16/bfloat16: the low
/// std::numeric_limits<T>::digits bits of a 32-bit draw, scaled in float.
template <class T>
T reduced_uniform_before_2_12(Generator& generator) {
  constexpr int digits = std::is_same_v<T, Half> ? 11 : 8;
  constexpr float scale = 1.0f / static_cast<float>(1U << digits);
  return T(static_cast<float>(generator.random() & ((1U << digits) - 1)) * scale);
}

/// torch's uniform_kernel for float16/bfloat16: a float sample rounded to T,
/// where a value that rounds up to 1 becomes 0 to keep the range [0, 1).
template <class T>
T narrowed_uniform(Generator& generator) {
  if (torch_samples_reduced_floats_natively()) return reduced_uniform_before_2_12<T>(generator);
  const T value(uniform_float(generator));
  return static_cast<float>(value) == 1.0f ? T(0.0f) : value;
}

/// One sample of torch's uniform_kernel for dtype T.
template <class T>
T uniform_sample(Generator& generator) {
  if constexpr (std::is_same_v<T, double>) {
    return uniform_double(generator);
  } else if constexpr (std::is_same_v<T, float>) {
    return uniform_float(generator);
  } else {
    return narrowed_uniform<T>(generator);
  }
}

}  // namespace

template <class T>
void fill_uniform(Generator& generator, T* out, std::int64_t count) {
  for (std::int64_t i = 0; i < count; ++i)
    out[i] = uniform_sample<T>(generator);
}

namespace {

// --- normal samples, small tensors: torch's normal_distribution<double> ---------------

/// One standard normal sample by Box-Muller. Each pair of uniforms gives two
/// samples; the second is kept in the generator for the next call, exactly
/// as CPUGeneratorImpl keeps it.
double standard_normal(Generator& generator) {
  auto& spare = generator.next_double_normal_sample();
  if (spare) {
    const double sample = *spare;
    spare.reset();
    return sample;
  }
  const double u1 = uniform_double(generator);
  const double u2 = uniform_double(generator);
  const double radius = std::sqrt(-2.0 * std::log1p(-u2));
  const double theta = 2.0 * std::numbers::pi * u1;
  spare = radius * std::sin(theta);
  return radius * std::cos(theta);
}

template <class T>
void fill_elementwise_normal(Generator& generator, T* out, std::int64_t count, double stddev) {
  // `sample * stddev + mean` with mean 0, fused or not: one rounding either way.
  for (std::int64_t i = 0; i < count; ++i)
    out[i] = T(standard_normal(generator) * stddev);
}

// --- normal samples, >= 16 elements: torch's normal_fill ------------------------------
//
// For float (and float16/bfloat16, computed in float) torch runs
// NormalFill16<float> of DistributionTemplates.h in one of two versions,
// chosen by the build of DistributionKernels.cpp that normal_stub dispatches
// to (kernel_build(Stub::Normal), libtorch_cpu.h):
//  - its AVX2 build (CPU_CAPABILITY_AVX2), under ATEN_CPU_CAPABILITY avx2 and
//    also avx512, since normal_stub has no AVX512 kernel
//    (REGISTER_NO_AVX512_DISPATCH(normal_stub) in DistributionKernels.cpp):
//    the AVX2 specialisation, which takes log, sin and cos from
//    avx_mathfun.h (Cephes polynomials, not libm). The functions below
//    evaluate those polynomials one lane at a time with the same roundings:
//    torch's compiler (GCC, -ffp-contract=fast) fuses each multiply whose
//    only use is an add into an FMA, hence the std::fma calls;
//  - its DEFAULT build (ATEN_CPU_CAPABILITY=default, or a CPU without AVX2
//    and FMA): the generic version with libm's logf, sinf and cosf.
// Double always takes the generic version with libm's log, sin and cos. libm
// is the system's, shared with libtorch, so the results match torch's on the
// machine they run on.

float bits_as_float(std::uint32_t bits) {
  return std::bit_cast<float>(bits);
}
std::uint32_t float_bits(float value) {
  return std::bit_cast<std::uint32_t>(value);
}

/// avx_mathfun's log256_ps for x in (0, 1] (Cephes logf).
float cephes_log(float x) {
  x = std::max(x, bits_as_float(0x00800000U));  // no subnormals
  const auto exponent = static_cast<std::int32_t>(float_bits(x) >> 23) - 0x7f;
  x = bits_as_float((float_bits(x) & ~0x7f800000U) | float_bits(0.5f));  // mantissa in [0.5, 1)
  float e = static_cast<float>(exponent) + 1.0f;
  // Below sqrt(1/2) the mantissa doubles and the exponent drops by one.
  const bool small = x < 0.707106781186547524f;
  const float addend = small ? x : 0.0f;
  x = x - 1.0f;
  e = e - (small ? 1.0f : 0.0f);
  x = x + addend;

  const float z = x * x;
  float y = 7.0376836292E-2f;
  for (const float coefficient :
       {-1.1514610310E-1f, 1.1676998740E-1f, -1.2420140846E-1f, 1.4249322787E-1f, -1.6668057665E-1f,
        2.0000714765E-1f, -2.4999993993E-1f, 3.3333331174E-1f}) {
    y = std::fma(y, x, coefficient);
  }
  y = y * x;
  y = std::fma(y, z, e * -2.12194440e-4f);  // y*z + e*q1: the first product is fused
  y = std::fma(z, -0.5f, y);
  x = x + y;
  return std::fma(e, 0.693359375f, x);
}

struct SinCos {
  float sin;
  float cos;
};

/// avx_mathfun's sincos256_ps for theta in [0, 2 pi) (Cephes sinf/cosf).
SinCos cephes_sincos(float theta) {
  std::uint32_t sin_sign = float_bits(theta) & 0x80000000U;
  float x = bits_as_float(float_bits(theta) & 0x7fffffffU);

  // The octant j, rounded up to even, decides the polynomial and the signs.
  auto octant = static_cast<std::int32_t>(x * 1.27323954473516f);  // x * 4/pi, truncated
  octant = (octant + 1) & ~1;
  const auto y = static_cast<float>(octant);
  sin_sign ^= static_cast<std::uint32_t>(octant & 4) << 29;
  const std::uint32_t cos_sign = static_cast<std::uint32_t>(~(octant - 2) & 4) << 29;
  const bool cosine_polynomial_is_cos = (octant & 2) == 0;

  // "Extended precision modular arithmetic": x - y * pi/4 in three parts.
  x = std::fma(y, -0.78515625f, x);
  x = std::fma(y, -2.4187564849853515625e-4f, x);
  x = std::fma(y, -3.77489497744594108e-8f, x);

  const float z = x * x;
  float cosine = std::fma(2.443315711809948E-005f, z, -1.388731625493765E-003f);
  cosine = std::fma(cosine, z, 4.166664568298827E-002f);
  cosine = cosine * z;
  cosine = std::fma(cosine, z, -(z * 0.5f));  // fused into the subtraction
  cosine = cosine + 1.0f;

  float sine = std::fma(-1.9515295891E-4f, z, 8.3321608736E-3f);
  sine = std::fma(sine, z, -1.6666654611E-1f);
  sine = sine * z;
  sine = std::fma(sine, x, x);

  // The masked selection adds +0 to the chosen value (turning -0 into +0).
  const float sin_value = cosine_polynomial_is_cos ? 0.0f + sine : cosine + 0.0f;
  const float cos_value = cosine_polynomial_is_cos ? cosine + 0.0f : 0.0f + sine;
  return {bits_as_float(float_bits(sin_value) ^ sin_sign),
          bits_as_float(float_bits(cos_value) ^ cos_sign)};
}

/// Box-Muller on 16 uniforms in place: pairs (j, j + 8) become two normals.
/// NormalFill16<float> for AVX2.
void avx2_normal_fill_16(float* data, float stddev) {
  // _mm256_set1_ps(2.0f * c10::pi<double>): computed in double, then rounded.
  constexpr auto two_pi = static_cast<float>(2.0 * std::numbers::pi);
  for (int j = 0; j < 8; ++j) {
    const float u1 = 1.0f - data[j];  // [0, 1) -> (0, 1] for the log
    const float radius = std::sqrt(-2.0f * cephes_log(u1));
    const SinCos trig = cephes_sincos(two_pi * data[j + 8]);
    data[j] = std::fma(radius * trig.cos, stddev, 0.0f);
    data[j + 8] = std::fma(radius * trig.sin, stddev, 0.0f);
  }
}

/// The generic NormalFill16<T>, with libm's log, sin and cos in T.
template <class T>
void generic_normal_fill_16(T* data, T stddev) {
  for (int j = 0; j < 8; ++j) {
    const T u1 = 1 - data[j];
    const T radius = std::sqrt(-2 * std::log(u1));
    // `2.0f * c10::pi<double> * u2` is computed in double, even for float.
    const auto theta = static_cast<T>(2.0 * std::numbers::pi * data[j + 8]);
    data[j] = std::fma(radius * std::cos(theta), stddev, T{0});
    data[j + 8] = std::fma(radius * std::sin(theta), stddev, T{0});
  }
}

/// Whether the running torch's normal_stub runs its AVX2 build (see above).
bool torch_runs_avx2_normal_fill() {
  static const bool avx2 = kernel_build(Stub::Normal) == Capability::Avx2;
  return avx2;
}

void normal_fill_16(float* data, float stddev) {
  if (torch_runs_avx2_normal_fill()) {
    avx2_normal_fill_16(data, stddev);
  } else {
    generic_normal_fill_16(data, stddev);
  }
}

void normal_fill_16(double* data, double stddev) {
  generic_normal_fill_16(data, stddev);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define FP_HAVE_AVX2_NORMAL_FILL 1

// The AVX2 kernel itself, eight lanes at once: the same operations as
// cephes_log, cephes_sincos and avx2_normal_fill_16 above, in the same order
// and with the same fused multiply-adds (this file is compiled with
// -ffp-contract=off, so an _mm256_mul_ps never fuses with an add), hence the
// same bits. Compiled for AVX2 and FMA whatever the build targets, and only
// called where the CPU has both.

#define FP_AVX2 __attribute__((target("avx2,fma")))

FP_AVX2 inline __m256 splat(float value) {
  return _mm256_set1_ps(value);
}
FP_AVX2 inline __m256 splat_bits(std::uint32_t bits) {
  return _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int>(bits)));
}

FP_AVX2 __m256 cephes_log8(__m256 x) {
  x = _mm256_max_ps(x, splat_bits(0x00800000U));
  __m256i exponent = _mm256_srli_epi32(_mm256_castps_si256(x), 23);
  x = _mm256_and_ps(x, splat_bits(~0x7f800000U));
  x = _mm256_or_ps(x, splat(0.5f));
  exponent = _mm256_sub_epi32(exponent, _mm256_set1_epi32(0x7f));
  __m256 e = _mm256_add_ps(_mm256_cvtepi32_ps(exponent), splat(1.0f));
  const __m256 small = _mm256_cmp_ps(x, splat(0.707106781186547524f), _CMP_LT_OS);
  const __m256 addend = _mm256_and_ps(x, small);
  x = _mm256_sub_ps(x, splat(1.0f));
  e = _mm256_sub_ps(e, _mm256_and_ps(splat(1.0f), small));
  x = _mm256_add_ps(x, addend);

  const __m256 z = _mm256_mul_ps(x, x);
  __m256 y = splat(7.0376836292E-2f);
  for (const float coefficient :
       {-1.1514610310E-1f, 1.1676998740E-1f, -1.2420140846E-1f, 1.4249322787E-1f, -1.6668057665E-1f,
        2.0000714765E-1f, -2.4999993993E-1f, 3.3333331174E-1f}) {
    y = _mm256_fmadd_ps(y, x, splat(coefficient));
  }
  y = _mm256_mul_ps(y, x);
  y = _mm256_fmadd_ps(y, z, _mm256_mul_ps(e, splat(-2.12194440e-4f)));
  y = _mm256_fmadd_ps(z, splat(-0.5f), y);
  x = _mm256_add_ps(x, y);
  return _mm256_fmadd_ps(e, splat(0.693359375f), x);
}

struct SinCos8 {
  __m256 sin;
  __m256 cos;
};

FP_AVX2 SinCos8 cephes_sincos8(__m256 theta) {
  const __m256i sign_bit = _mm256_set1_epi32(static_cast<int>(0x80000000U));
  __m256i sin_sign = _mm256_and_si256(_mm256_castps_si256(theta), sign_bit);
  __m256 x = _mm256_and_ps(theta, splat_bits(0x7fffffffU));

  __m256i octant = _mm256_cvttps_epi32(_mm256_mul_ps(x, splat(1.27323954473516f)));
  octant = _mm256_and_si256(_mm256_add_epi32(octant, _mm256_set1_epi32(1)), _mm256_set1_epi32(~1));
  const __m256 y = _mm256_cvtepi32_ps(octant);
  const __m256i four = _mm256_set1_epi32(4);
  sin_sign = _mm256_xor_si256(sin_sign, _mm256_slli_epi32(_mm256_and_si256(octant, four), 29));
  const __m256i cos_sign = _mm256_slli_epi32(
      _mm256_andnot_si256(_mm256_sub_epi32(octant, _mm256_set1_epi32(2)), four), 29);
  const __m256 cosine_polynomial_is_cos = _mm256_castsi256_ps(
      _mm256_cmpeq_epi32(_mm256_and_si256(octant, _mm256_set1_epi32(2)), _mm256_setzero_si256()));

  x = _mm256_fmadd_ps(y, splat(-0.78515625f), x);
  x = _mm256_fmadd_ps(y, splat(-2.4187564849853515625e-4f), x);
  x = _mm256_fmadd_ps(y, splat(-3.77489497744594108e-8f), x);

  const __m256 z = _mm256_mul_ps(x, x);
  __m256 cosine =
      _mm256_fmadd_ps(splat(2.443315711809948E-005f), z, splat(-1.388731625493765E-003f));
  cosine = _mm256_fmadd_ps(cosine, z, splat(4.166664568298827E-002f));
  cosine = _mm256_mul_ps(cosine, z);
  cosine = _mm256_fmadd_ps(cosine, z, _mm256_xor_ps(_mm256_mul_ps(z, splat(0.5f)), splat(-0.0f)));
  cosine = _mm256_add_ps(cosine, splat(1.0f));

  __m256 sine = _mm256_fmadd_ps(splat(-1.9515295891E-4f), z, splat(8.3321608736E-3f));
  sine = _mm256_fmadd_ps(sine, z, splat(-1.6666654611E-1f));
  sine = _mm256_mul_ps(sine, z);
  sine = _mm256_fmadd_ps(sine, x, x);

  const __m256 zero = _mm256_setzero_ps();
  const __m256 sine_plus_zero = _mm256_add_ps(zero, sine);
  const __m256 cosine_plus_zero = _mm256_add_ps(cosine, zero);
  const __m256 sin_value =
      _mm256_blendv_ps(cosine_plus_zero, sine_plus_zero, cosine_polynomial_is_cos);
  const __m256 cos_value =
      _mm256_blendv_ps(sine_plus_zero, cosine_plus_zero, cosine_polynomial_is_cos);
  return {_mm256_xor_ps(sin_value, _mm256_castsi256_ps(sin_sign)),
          _mm256_xor_ps(cos_value, _mm256_castsi256_ps(cos_sign))};
}

/// avx2_normal_fill_16 on `blocks` consecutive blocks of 16.
FP_AVX2 void avx2_normal_fill_blocks(float* data, std::int64_t blocks, float stddev) {
  constexpr auto two_pi = static_cast<float>(2.0 * std::numbers::pi);
  const __m256 scale = splat(stddev);
  for (std::int64_t block = 0; block < blocks; ++block) {
    float* first = data + 16 * block;
    const __m256 u1 = _mm256_sub_ps(splat(1.0f), _mm256_loadu_ps(first));
    const __m256 radius = _mm256_sqrt_ps(_mm256_mul_ps(splat(-2.0f), cephes_log8(u1)));
    const SinCos8 trig = cephes_sincos8(_mm256_mul_ps(splat(two_pi), _mm256_loadu_ps(first + 8)));
    _mm256_storeu_ps(first,
                     _mm256_fmadd_ps(_mm256_mul_ps(radius, trig.cos), scale, _mm256_setzero_ps()));
    _mm256_storeu_ps(first + 8,
                     _mm256_fmadd_ps(_mm256_mul_ps(radius, trig.sin), scale, _mm256_setzero_ps()));
  }
}

#undef FP_AVX2

bool cpu_has_avx2_and_fma() {
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}
#endif

/// normal_fill_16 on `blocks` consecutive blocks of 16, eight lanes at a
/// time where torch runs its AVX2 kernel and this CPU can too.
void normal_fill_blocks(float* data, std::int64_t blocks, float stddev) {
#ifdef FP_HAVE_AVX2_NORMAL_FILL
  if (torch_runs_avx2_normal_fill() && cpu_has_avx2_and_fma()) {
    avx2_normal_fill_blocks(data, blocks, stddev);
    return;
  }
#endif
  for (std::int64_t block = 0; block < blocks; ++block)
    normal_fill_16(data + 16 * block, stddev);
}

void normal_fill_blocks(double* data, std::int64_t blocks, double stddev) {
  for (std::int64_t block = 0; block < blocks; ++block)
    normal_fill_16(data + 16 * block, stddev);
}

/// normal_fill where the tensor's dtype is the compute type (float, double):
/// all uniforms are drawn into the tensor first and transformed in blocks of
/// 16; a partial last block is redrawn as a whole and overwrites the last 16.
template <class T>
void fill_normal_in_place(Generator& generator, T* data, std::int64_t count, T stddev) {
  fill_uniform<T>(generator, data, count);
  normal_fill_blocks(data, count / 16, stddev);
  if (count % 16 != 0) {
    T* last_block = data + count - 16;
    for (int j = 0; j < 16; ++j)
      last_block[j] = uniform_sample<T>(generator);
    normal_fill_16(last_block, stddev);
  }
}

/// normal_fill for float16/bfloat16 (torch 2.12 and later): each block of 16
/// float uniforms is drawn into a buffer, transformed, then rounded into the
/// tensor. torch 2.12 transforms the buffer with the generic normal_fill_16
/// on every CPU, later releases with the one their float tensors use.
template <class T>
void fill_buffered_normal(Generator& generator, T* values, std::int64_t count, float stddev) {
  static const bool generic_only = torch_version() < TorchVersion{2, 13, 0};
  const auto fill_block = [&](std::int64_t offset) {
    float block[16];
    for (float& value : block)
      value = uniform_float(generator);
    if (generic_only) {
      generic_normal_fill_16(block, stddev);
    } else {
      normal_fill_16(block, stddev);
    }
    for (int j = 0; j < 16; ++j)
      values[offset + j] = T(block[j]);
  };
  for (std::int64_t i = 0; i + 16 <= count; i += 16)
    fill_block(i);
  if (count % 16 != 0) fill_block(count - 16);
}

/// torch < 2.12's normal_fill_16<T> for float16/bfloat16, in T's arithmetic:
/// c10 computes each operation (and std::log, sqrt, cos, sin of a T, from
/// c10/util/BFloat16-math.h) in float and rounds the result to T; theta is
/// computed in double and stored as T through float.
template <class T>
void reduced_normal_fill_16_before_2_12(T* data, float stddev) {
  const auto in_t = [](float value) { return static_cast<float>(T(value)); };
  const float std_t = in_t(stddev);
  for (int j = 0; j < 8; ++j) {
    const float u1 = in_t(1.0f - static_cast<float>(data[j]));
    const float u2 = static_cast<float>(data[j + 8]);
    const float radius = in_t(std::sqrt(in_t(-2.0f * in_t(std::log(u1)))));
    const float theta = in_t(static_cast<float>(2.0 * std::numbers::pi * static_cast<double>(u2)));
    data[j] = T(in_t(in_t(radius * in_t(std::cos(theta))) * std_t) + 0.0f);
    data[j + 8] = T(in_t(in_t(radius * in_t(std::sin(theta))) * std_t) + 0.0f);
  }
}

/// torch < 2.12's normal_fill<T> for float16/bfloat16: uniforms in T, drawn
/// into the tensor, then transformed in place like filled_normal_samples.
template <class T>
void fill_reduced_normal_before_2_12(Generator& generator, T* values, std::int64_t count,
                                     float stddev) {
  for (std::int64_t i = 0; i < count; ++i)
    values[i] = reduced_uniform_before_2_12<T>(generator);
  for (std::int64_t i = 0; i + 16 <= count; i += 16)
    reduced_normal_fill_16_before_2_12(values + i, stddev);
  if (count % 16 != 0) {
    T* last_block = values + count - 16;
    for (int j = 0; j < 16; ++j)
      last_block[j] = reduced_uniform_before_2_12<T>(generator);
    reduced_normal_fill_16_before_2_12(last_block, stddev);
  }
}

}  // namespace

/// torch's normal_kernel for a contiguous tensor of `count` reals.
template <class T>
void fill_normal(Generator& generator, T* out, std::int64_t count, double stddev) {
  if (count < 16) {
    fill_elementwise_normal<T>(generator, out, count, stddev);
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    fill_normal_in_place<T>(generator, out, count, static_cast<T>(stddev));
  } else if (torch_samples_reduced_floats_natively()) {
    fill_reduced_normal_before_2_12<T>(generator, out, count, static_cast<float>(stddev));
  } else {
    fill_buffered_normal<T>(generator, out, count, static_cast<float>(stddev));
  }
}

// --- exponential samples: torch's exponential_distribution<double> --------------------

template <class T>
void fill_exponential(Generator& generator, T* out, std::int64_t count, double lambda) {
  // transformation::exponential on the CPU; the sample is a double whatever T is.
  const double factor = -1.0 / lambda;
  for (std::int64_t i = 0; i < count; ++i) {
    const double sample = factor * std::log1p(-uniform_double(generator));
    if constexpr (std::is_same_v<T, double>) {
      out[i] = sample;
    } else {
      out[i] = T(static_cast<float>(sample));  // c10::Half and BFloat16 convert through float
    }
  }
}

namespace {

// --- integer samples: torch's uniform_int_from_to_distribution -----------------------

/// An integer in [low, high). Ranges of 2^28 and more take 64 random bits
/// (torch accepts the small modulo bias below that).
std::int64_t uniform_integer(Generator& generator, std::uint64_t range, std::int64_t low) {
  const std::uint64_t bits =
      range >= (std::uint64_t{1} << 28) ? generator.random64() : std::uint64_t{generator.random()};
  return static_cast<std::int64_t>(bits % range + static_cast<std::uint64_t>(low));
}

/// `static_cast<T>(int64)` as torch's kernel stores the sample.
template <class T>
T stored_as(std::int64_t value) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    return T(static_cast<float>(value));  // c10::Half converts through float
  } else {
    return static_cast<T>(value);
  }
}

}  // namespace

template <class T>
void fill_integers(Generator& generator, detail::IntegerRange range, T* out, std::int64_t count) {
  const std::uint64_t width =
      static_cast<std::uint64_t>(range.high) - static_cast<std::uint64_t>(range.low);
  for (std::int64_t i = 0; i < count; ++i)
    out[i] = stored_as<T>(uniform_integer(generator, width, range.low));
}

// A type name cannot be parenthesised where these macros use it.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define FP_INSTANTIATE_REAL(T)                                        \
  template void fill_uniform<T>(Generator&, T*, std::int64_t);        \
  template void fill_normal<T>(Generator&, T*, std::int64_t, double); \
  template void fill_exponential<T>(Generator&, T*, std::int64_t, double);
FP_INSTANTIATE_REAL(float)
FP_INSTANTIATE_REAL(double)
FP_INSTANTIATE_REAL(Half)
FP_INSTANTIATE_REAL(BFloat16)
#undef FP_INSTANTIATE_REAL

#define FP_INSTANTIATE_INTEGER(T) \
  template void fill_integers<T>(Generator&, detail::IntegerRange, T*, std::int64_t);
FP_INSTANTIATE_INTEGER(std::uint8_t)
FP_INSTANTIATE_INTEGER(std::uint16_t)
FP_INSTANTIATE_INTEGER(std::uint32_t)
FP_INSTANTIATE_INTEGER(std::uint64_t)
FP_INSTANTIATE_INTEGER(std::int8_t)
FP_INSTANTIATE_INTEGER(std::int16_t)
FP_INSTANTIATE_INTEGER(std::int32_t)
FP_INSTANTIATE_INTEGER(std::int64_t)
FP_INSTANTIATE_INTEGER(Half)
FP_INSTANTIATE_INTEGER(BFloat16)
FP_INSTANTIATE_INTEGER(float)
FP_INSTANTIATE_INTEGER(double)
#undef FP_INSTANTIATE_INTEGER
// NOLINTEND(bugprone-macro-parentheses)

}  // namespace fp::mirrored
