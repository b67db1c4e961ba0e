// The random factories: rand, randn, randint and their `*_like` forms.
//
// Without a Generator they call libtorch's ops, which draw from torch's
// default generator. With an fp::Generator they sample here, on the CPU, with
// the algorithms of torch's CPU kernels (aten/src/ATen/native/cpu/
// DistributionTemplates.h, core/DistributionsHelper.h), so that the numbers
// equal Python's `torch.rand(..., generator=torch.Generator().manual_seed(s))`,
// and only then move the tensor to the requested device.
//
// Bit-exactness depends on rounding each operation exactly as torch's compiled
// kernels do, so this file is compiled with -ffp-contract=off (see
// src/CMakeLists.txt): the multiply-adds torch's build fuses are spelled out
// as std::fma below, and no others may be fused.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <new>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "flash_powder/abi/dispatch.h"
#include "flash_powder/abi/runtime.h"
#include "flash_powder/core/factory.h"

namespace fp {

namespace {

// --- checking the arguments ----------------------------------------------------

std::string sizes_text(IntList sizes) {
  std::string text = "[";
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    text += (i == 0 ? "" : ", ") + std::to_string(sizes[i]);
  }
  return text + "]";
}

/// The number of elements of `sizes`; throws on a negative size (as torch's
/// "Trying to create tensor with negative dimension") or an int64 overflow.
std::int64_t checked_numel(std::string_view op, IntList sizes) {
  std::int64_t count = 1;
  for (const std::int64_t size : sizes) {
    if (size < 0) {
      throw Error(std::string(op) + ": negative dimension " + std::to_string(size) + " in sizes " +
                  sizes_text(sizes) + "; every size must be >= 0");
    }
    if (__builtin_mul_overflow(count, size, &count)) {
      throw Error(std::string(op) + ": sizes " + sizes_text(sizes) +
                  " hold more elements than int64 can count");
    }
  }
  return count;
}

/// rand and randn fill floating-point and complex dtypes only (torch's
/// uniform_ and normal_ kernels dispatch on float16, bfloat16, float32,
/// float64 and their complex pairs; float8 types are not implemented).
void check_real_or_complex(std::string_view op, DType dtype) {
  switch (dtype) {
    case DType::F16:
    case DType::BF16:
    case DType::F32:
    case DType::F64:
    case DType::C32:
    case DType::C64:
    case DType::C128:
      return;
    default:
      throw Error(std::string(op) + ": cannot sample dtype " + std::string(name(dtype)) +
                  "; use float16, bfloat16, float32, float64 or a complex dtype" +
                  (is_integral(dtype, true) ? " (fp::randint samples integers)" : ""));
  }
}

/// The real dtype a complex dtype is made of; torch samples complex tensors
/// through view_as_real.
DType real_part_dtype(DType dtype) {
  switch (dtype) {
    case DType::C32:
      return DType::F16;
    case DType::C64:
      return DType::F32;
    case DType::C128:
      return DType::F64;
    default:
      return dtype;
  }
}

/// The mantissa digits of a floating dtype, as std::numeric_limits counts them.
int mantissa_digits(DType dtype) {
  switch (dtype) {
    case DType::F16:
      return 11;
    case DType::BF16:
      return 8;
    case DType::F32:
      return 24;
    default:
      return 53;
  }
}

/// The conversion of x86's cvttsd2si, which torch's static_cast<int64_t> of a
/// float compiles to: out of range (or NaN) gives INT64_MIN.
std::int64_t truncated_like_x86(double value) {
  constexpr double two_to_63 = 9223372036854775808.0;
  if (!(value >= -two_to_63 && value < two_to_63)) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(value);
}

/// `static_cast<int64_t>(static_cast<scalar_t>(value))` for a floating dtype;
/// int64 reaches float16 and bfloat16 through float, as c10::Half does.
std::int64_t rounded_through(DType dtype, std::int64_t value) {
  const auto as_float = static_cast<float>(value);
  switch (dtype) {
    case DType::F16:
      return truncated_like_x86(static_cast<float>(Half(as_float)));
    case DType::BF16:
      return truncated_like_x86(static_cast<float>(BFloat16(as_float)));
    case DType::F32:
      return truncated_like_x86(as_float);
    default:
      return truncated_like_x86(static_cast<double>(value));
  }
}

/// The distance from a power of two to the next representable value of a
/// floating dtype above `magnitude` (torch's `1 << (n - digits + 1)`).
std::int64_t spacing_above(std::int64_t magnitude, DType dtype) {
  int log2 = 0;
  while (magnitude >>= 1)
    ++log2;
  const int shift = log2 - mantissa_digits(dtype) + 1;
  return shift <= 0 ? 1 : (std::int64_t{1} << shift);
}

/// torch's update_from: when low + 1 is not representable in a floating dtype,
/// low moves up to the next value that is.
std::int64_t representable_low(std::int64_t low, DType dtype) {
  const std::int64_t rounded = rounded_through(dtype, low + 1);
  if (rounded >= low) return low;
  return static_cast<std::int64_t>(
      static_cast<std::uint64_t>(rounded) +
      static_cast<std::uint64_t>(spacing_above(std::abs(low + 1), dtype)));
}

/// torch's update_to: the mirror image of representable_low for high - 1.
std::int64_t representable_high(std::int64_t high, DType dtype) {
  const std::int64_t rounded = rounded_through(dtype, high - 1);
  if (rounded < high) return high;
  return static_cast<std::int64_t>(
      static_cast<std::uint64_t>(rounded) -
      static_cast<std::uint64_t>(spacing_above(std::abs(high - 1), dtype)));
}

struct IntegerBounds {
  double lowest;
  double highest;
};

/// The values randint may produce in `dtype` (torch's check_from_to_in_range;
/// uint64 stops at INT64_MAX because low and high are int64).
std::optional<IntegerBounds> randint_bounds(DType dtype) {
  constexpr double int64_max = 9223372036854775807.0;
  switch (dtype) {
    case DType::Bool:
      return IntegerBounds{0, 1};
    case DType::U8:
      return IntegerBounds{0, 255};
    case DType::U16:
      return IntegerBounds{0, 65535};
    case DType::U32:
      return IntegerBounds{0, 4294967295.0};
    case DType::U64:
      return IntegerBounds{0, int64_max};
    case DType::I8:
      return IntegerBounds{-128, 127};
    case DType::I16:
      return IntegerBounds{-32768, 32767};
    case DType::I32:
      return IntegerBounds{-2147483648.0, 2147483647.0};
    case DType::I64:
      return IntegerBounds{-int64_max - 1, int64_max};
    case DType::F16:
      return IntegerBounds{-65504, 65504};
    case DType::BF16:
      return IntegerBounds{-3.3895313892515355e38, 3.3895313892515355e38};
    case DType::F32:
      return IntegerBounds{-std::numeric_limits<float>::max(), std::numeric_limits<float>::max()};
    case DType::F64:
      return IntegerBounds{-std::numeric_limits<double>::max(), std::numeric_limits<double>::max()};
    default:
      return std::nullopt;
  }
}

/// [low, high) as randint draws it.
struct IntegerRange {
  std::int64_t low;
  std::int64_t high;
};

/// A bound of a dtype's range in an error message.
std::string bound_text(double bound) {
  if (std::abs(bound) < 9.2e18) return std::to_string(static_cast<std::int64_t>(bound));
  return bound < 0 ? "-" + std::to_string(-bound) : std::to_string(bound);
}

/// The range after torch's checks and adjustments in random_from_to_impl (in
/// its order, so the same input fails on the same condition).
IntegerRange checked_randint_range(std::string_view op, std::int64_t low, std::int64_t high,
                                   DType dtype) {
  const std::string prefix(op);
  const auto bounds = randint_bounds(dtype);
  if (!bounds) {
    throw Error(prefix + ": cannot sample integers into dtype " + std::string(name(dtype)) +
                "; use an integer, floating-point (not float8) or bool dtype");
  }
  if (low >= high) {
    throw Error(prefix + ": low must be less than high, but got low=" + std::to_string(low) +
                " >= high=" + std::to_string(high));
  }
  IntegerRange range{low, high};
  if (is_floating_point(dtype)) {
    range = {representable_low(low, dtype), representable_high(high, dtype)};
    if (range.low >= range.high) {
      throw Error(prefix + ": [" + std::to_string(low) + ", " + std::to_string(high) +
                  ") holds no value of dtype " + std::string(name(dtype)) +
                  " once rounded to it: low=" + std::to_string(range.low) +
                  " >= high=" + std::to_string(range.high));
    }
  }
  const auto fits = [&](std::int64_t value) {
    return static_cast<double>(value) >= bounds->lowest &&
           static_cast<double>(value) <= bounds->highest;
  };
  if (!fits(range.low) || !fits(range.high - 1)) {
    throw Error(prefix + ": [low, high) = [" + std::to_string(low) + ", " + std::to_string(high) +
                ") does not fit dtype " + std::string(name(dtype)) + ", which holds [" +
                bound_text(bounds->lowest) + ", " + bound_text(bounds->highest) + "]");
  }
  return range;
}

void check_defined(std::string_view op, TensorView source) {
  if (!source.is_defined()) throw Error(std::string(op) + ": the source tensor is undefined");
}

// --- options ------------------------------------------------------------------------

/// Python's pin_memory=: None unless asked for.
std::optional<bool> pin_memory(const TensorOptions& options) {
  return options.pinned_memory() ? std::optional<bool>(true) : std::nullopt;
}

void check_strided(std::string_view op, const TensorOptions& options) {
  if (options.layout() && *options.layout() != Layout::Strided) {
    throw Error(std::string(op) + ": a Generator samples strided tensors only, not layout " +
                std::string(name(*options.layout())));
  }
}

/// Samples drawn on the CPU, moved to the requested device (and pinned if asked).
Tensor placed(Tensor samples, const TensorOptions& options) {
  const Device device = options.device_or(Device::cpu());
  if (device.is_cpu() && !options.pinned_memory()) return samples;
  const DType dtype = samples.dtype();
  return dispatch<Tensor>("aten::_to_copy", "", samples, dtype, std::nullopt, device,
                          pin_memory(options));
}

/// `sample()`, with running out of memory reported as an fp::Error (as
/// libtorch's allocator does) instead of std::bad_alloc or std::length_error.
template <class Sample>
Tensor sampled_in_memory(std::string_view op, std::int64_t count, Sample&& sample) {
  try {
    return sample();
  } catch (const std::bad_alloc&) {
    throw Error(std::string(op) + ": not enough memory to sample " + std::to_string(count) +
                " elements");
  } catch (const std::length_error&) {
    throw Error(std::string(op) + ": not enough memory to sample " + std::to_string(count) +
                " elements");
  }
}

template <class T>
Tensor cpu_tensor(const std::vector<T>& values, IntList sizes, DType dtype) {
  return detail::tensor_from_bytes(values.data(), sizes, dtype);
}

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

template <class T>
std::vector<T> uniform_samples(Generator& generator, std::int64_t count) {
  std::vector<T> values(static_cast<std::size_t>(count));
  for (T& value : values)
    value = uniform_sample<T>(generator);
  return values;
}

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
std::vector<T> elementwise_normal_samples(Generator& generator, std::int64_t count, double stddev) {
  std::vector<T> values(static_cast<std::size_t>(count));
  // `sample * stddev + mean` with mean 0, fused or not: one rounding either way.
  for (T& value : values)
    value = T(standard_normal(generator) * stddev);
  return values;
}

// --- normal samples, >= 16 elements: torch's normal_fill ------------------------------
//
// For float (and float16/bfloat16, computed in float) torch runs
// NormalFill16<float> of DistributionTemplates.h in one of two versions:
//  - on x86 CPUs with AVX2 and FMA, its AVX2 kernel, which takes log, sin and
//    cos from avx_mathfun.h (Cephes polynomials, not libm). AVX512 machines run
//    it too: normal_stub has no AVX512 kernel (REGISTER_NO_AVX512_DISPATCH).
//    The functions below evaluate those polynomials one lane at a time with
//    the same roundings: torch's compiler (GCC, -ffp-contract=fast) fuses each
//    multiply whose only use is an add into an FMA, hence the std::fma calls;
//  - elsewhere (other CPUs, or ATEN_CPU_CAPABILITY=default), the generic
//    version with libm's logf, sinf and cosf.
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

/// Whether torch runs its AVX2 normal_fill here: in its AVX2 and AVX512
/// dispatch (see above), not in the generic one.
bool torch_runs_avx2_kernels() {
  return torch_cpu_capability() != "DEFAULT";
}

void normal_fill_16(float* data, float stddev) {
  if (torch_runs_avx2_kernels()) {
    avx2_normal_fill_16(data, stddev);
  } else {
    generic_normal_fill_16(data, stddev);
  }
}

void normal_fill_16(double* data, double stddev) {
  generic_normal_fill_16(data, stddev);
}

/// normal_fill where the tensor's dtype is the compute type (float, double):
/// all uniforms are drawn into the tensor first and transformed in blocks of
/// 16; a partial last block is redrawn as a whole and overwrites the last 16.
template <class T>
std::vector<T> filled_normal_samples(Generator& generator, std::int64_t count, T stddev) {
  std::vector<T> values = uniform_samples<T>(generator, count);
  T* data = values.data();
  for (std::int64_t i = 0; i + 16 <= count; i += 16)
    normal_fill_16(data + i, stddev);
  if (count % 16 != 0) {
    T* last_block = data + count - 16;
    for (int j = 0; j < 16; ++j)
      last_block[j] = uniform_sample<T>(generator);
    normal_fill_16(last_block, stddev);
  }
  return values;
}

/// normal_fill for float16/bfloat16 (torch 2.12 and later): each block of 16
/// float uniforms is drawn into a buffer, transformed, then rounded into the
/// tensor. torch 2.12 transforms the buffer with the generic normal_fill_16
/// on every CPU, later releases with the one their float tensors use.
template <class T>
std::vector<T> buffered_normal_samples(Generator& generator, std::int64_t count, float stddev) {
  static const bool generic_only = torch_version() < TorchVersion{2, 13, 0};
  std::vector<T> values(static_cast<std::size_t>(count));
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
      values[static_cast<std::size_t>(offset + j)] = T(block[j]);
  };
  for (std::int64_t i = 0; i + 16 <= count; i += 16)
    fill_block(i);
  if (count % 16 != 0) fill_block(count - 16);
  return values;
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
std::vector<T> reduced_normal_samples_before_2_12(Generator& generator, std::int64_t count,
                                                  float stddev) {
  std::vector<T> values(static_cast<std::size_t>(count));
  for (T& value : values)
    value = reduced_uniform_before_2_12<T>(generator);
  for (std::int64_t i = 0; i + 16 <= count; i += 16)
    reduced_normal_fill_16_before_2_12(values.data() + i, stddev);
  if (count % 16 != 0) {
    T* last_block = values.data() + count - 16;
    for (int j = 0; j < 16; ++j)
      last_block[j] = reduced_uniform_before_2_12<T>(generator);
    reduced_normal_fill_16_before_2_12(last_block, stddev);
  }
  return values;
}

/// torch's normal_kernel for a contiguous tensor of `count` reals.
template <class T>
std::vector<T> normal_samples(Generator& generator, std::int64_t count, double stddev) {
  if (count < 16) return elementwise_normal_samples<T>(generator, count, stddev);
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return filled_normal_samples<T>(generator, count, static_cast<T>(stddev));
  } else {
    if (torch_samples_reduced_floats_natively())
      return reduced_normal_samples_before_2_12<T>(generator, count, static_cast<float>(stddev));
    return buffered_normal_samples<T>(generator, count, static_cast<float>(stddev));
  }
}

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

template <class T>
Tensor integer_tensor(Generator& generator, IntegerRange range, IntList sizes, std::int64_t count,
                      DType dtype) {
  const std::uint64_t width =
      static_cast<std::uint64_t>(range.high) - static_cast<std::uint64_t>(range.low);
  std::vector<T> values(static_cast<std::size_t>(count));
  for (T& value : values)
    value = stored_as<T>(uniform_integer(generator, width, range.low));
  return cpu_tensor(values, sizes, dtype);
}

Tensor sampled_integers(Generator& generator, IntegerRange range, IntList sizes, std::int64_t count,
                        DType dtype) {
  switch (dtype) {
    case DType::Bool:  // stored as one byte, 0 or 1
      return integer_tensor<std::uint8_t>(generator, range, sizes, count, dtype);
    case DType::U8:
      return integer_tensor<std::uint8_t>(generator, range, sizes, count, dtype);
    case DType::U16:
      return integer_tensor<std::uint16_t>(generator, range, sizes, count, dtype);
    case DType::U32:
      return integer_tensor<std::uint32_t>(generator, range, sizes, count, dtype);
    case DType::U64:
      return integer_tensor<std::uint64_t>(generator, range, sizes, count, dtype);
    case DType::I8:
      return integer_tensor<std::int8_t>(generator, range, sizes, count, dtype);
    case DType::I16:
      return integer_tensor<std::int16_t>(generator, range, sizes, count, dtype);
    case DType::I32:
      return integer_tensor<std::int32_t>(generator, range, sizes, count, dtype);
    case DType::F16:
      return integer_tensor<Half>(generator, range, sizes, count, dtype);
    case DType::BF16:
      return integer_tensor<BFloat16>(generator, range, sizes, count, dtype);
    case DType::F32:
      return integer_tensor<float>(generator, range, sizes, count, dtype);
    case DType::F64:
      return integer_tensor<double>(generator, range, sizes, count, dtype);
    default:
      return integer_tensor<std::int64_t>(generator, range, sizes, count, dtype);
  }
}

// --- floating samples into tensors ------------------------------------------------------

/// Samples `count` reals of the dtype's real part with `sample(generator, n)`
/// and stores them as `dtype`: complex tensors are their reals in pairs.
template <class Sampler>
Tensor floating_tensor(DType dtype, IntList sizes, std::int64_t count, Sampler&& sample) {
  const std::int64_t reals = is_complex(dtype) ? 2 * count : count;
  switch (real_part_dtype(dtype)) {
    case DType::F16:
      return cpu_tensor(sample.template operator()<Half>(reals), sizes, dtype);
    case DType::BF16:
      return cpu_tensor(sample.template operator()<BFloat16>(reals), sizes, dtype);
    case DType::F64:
      return cpu_tensor(sample.template operator()<double>(reals), sizes, dtype);
    default:
      return cpu_tensor(sample.template operator()<float>(reals), sizes, dtype);
  }
}

/// torch.normal_ gives complex tensors unit variance: each part gets 1/sqrt(2).
double normal_stddev(DType dtype) {
  return is_complex(dtype) ? 1.0 / std::sqrt(2.0) : 1.0;
}

}  // namespace

// --- rand ---------------------------------------------------------------------------------

Tensor rand(IntList sizes, TensorOptions options) {
  const DType dtype = options.dtype_or(DType::F32);
  checked_numel("fp::rand", sizes);
  check_real_or_complex("fp::rand", dtype);
  return dispatch<Tensor>("aten::rand", "", sizes.vec(), dtype, options.layout(),
                          options.device_or(Device::cpu()), pin_memory(options));
}

Tensor rand(IntList sizes, Generator& generator, TensorOptions options) {
  const DType dtype = options.dtype_or(DType::F32);
  const std::int64_t count = checked_numel("fp::rand", sizes);
  check_real_or_complex("fp::rand", dtype);
  check_strided("fp::rand", options);
  Tensor samples = sampled_in_memory("fp::rand", count, [&] {
    return floating_tensor(dtype, sizes, count, [&]<class T>(std::int64_t reals) {
      return uniform_samples<T>(generator, reals);
    });
  });
  return placed(std::move(samples), options);
}

Tensor rand_like(TensorView source, TensorOptions options) {
  check_defined("fp::rand_like", source);
  check_real_or_complex("fp::rand_like", options.dtype().value_or(source.dtype()));
  return dispatch<Tensor>("aten::rand_like", "", source, options.dtype(), options.layout(),
                          options.device(), pin_memory(options), std::nullopt);
}

// --- randn --------------------------------------------------------------------------------

Tensor randn(IntList sizes, TensorOptions options) {
  const DType dtype = options.dtype_or(DType::F32);
  checked_numel("fp::randn", sizes);
  check_real_or_complex("fp::randn", dtype);
  return dispatch<Tensor>("aten::randn", "", sizes.vec(), dtype, options.layout(),
                          options.device_or(Device::cpu()), pin_memory(options));
}

Tensor randn(IntList sizes, Generator& generator, TensorOptions options) {
  const DType dtype = options.dtype_or(DType::F32);
  const std::int64_t count = checked_numel("fp::randn", sizes);
  check_real_or_complex("fp::randn", dtype);
  check_strided("fp::randn", options);
  const double stddev = normal_stddev(dtype);
  Tensor samples = sampled_in_memory("fp::randn", count, [&] {
    return floating_tensor(dtype, sizes, count, [&]<class T>(std::int64_t reals) {
      return normal_samples<T>(generator, reals, stddev);
    });
  });
  return placed(std::move(samples), options);
}

Tensor randn_like(TensorView source, TensorOptions options) {
  check_defined("fp::randn_like", source);
  check_real_or_complex("fp::randn_like", options.dtype().value_or(source.dtype()));
  return dispatch<Tensor>("aten::randn_like", "", source, options.dtype(), options.layout(),
                          options.device(), pin_memory(options), std::nullopt);
}

// --- randint ------------------------------------------------------------------------------

Tensor randint(std::int64_t high, IntList sizes, TensorOptions options) {
  return randint(0, high, sizes, options);
}

Tensor randint(std::int64_t low, std::int64_t high, IntList sizes, TensorOptions options) {
  const DType dtype = options.dtype_or(DType::I64);
  checked_numel("fp::randint", sizes);
  checked_randint_range("fp::randint", low, high, dtype);
  return dispatch<Tensor>("aten::randint", "low", low, high, sizes.vec(), dtype, options.layout(),
                          options.device_or(Device::cpu()), pin_memory(options));
}

Tensor randint(std::int64_t low, std::int64_t high, IntList sizes, Generator& generator,
               TensorOptions options) {
  const DType dtype = options.dtype_or(DType::I64);
  const std::int64_t count = checked_numel("fp::randint", sizes);
  const IntegerRange range = checked_randint_range("fp::randint", low, high, dtype);
  check_strided("fp::randint", options);
  Tensor samples = sampled_in_memory("fp::randint", count, [&] {
    return sampled_integers(generator, range, sizes, count, dtype);
  });
  return placed(std::move(samples), options);
}

Tensor randint_like(TensorView source, std::int64_t low, std::int64_t high, TensorOptions options) {
  check_defined("fp::randint_like", source);
  checked_randint_range("fp::randint_like", low, high, options.dtype().value_or(source.dtype()));
  return dispatch<Tensor>("aten::randint_like", "low_dtype", source, low, high, options.dtype(),
                          options.layout(), options.device(), pin_memory(options), std::nullopt);
}

}  // namespace fp
