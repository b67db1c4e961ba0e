// Tensor factories: torch.empty, zeros, ones, full, arange, linspace, eye,
// rand, randn, randint and their `*_like` forms. Each returns a new Tensor.
//
// Options convert from a DType or a Device alone:
//
//     fp::zeros({6, 6}, fp::DType::U8);
//     fp::randn({3, 3}, fp::Device::cpu());
//     fp::ones({2}, fp::TensorOptions(fp::DType::F16).device(fp::Device::cuda()));
//
// Unset options default as in Python: float32 (int64 for integer arange,
// full and randint) on the CPU.
#pragma once

#include <cstdint>
#include <type_traits>

#include "flash_powder/core/array_ref.h"
#include "flash_powder/core/conversion.h"
#include "flash_powder/core/generator.h"
#include "flash_powder/core/options.h"
#include "flash_powder/core/tensor.h"

namespace fp {

/// Uninitialised memory. https://pytorch.org/docs/stable/generated/torch.empty.html
Tensor empty(IntList sizes, TensorOptions options = {});
/// https://pytorch.org/docs/stable/generated/torch.zeros.html
Tensor zeros(IntList sizes, TensorOptions options = {});
/// https://pytorch.org/docs/stable/generated/torch.ones.html
Tensor ones(IntList sizes, TensorOptions options = {});

namespace detail {
Tensor full_impl(IntList sizes, const Tensor& value, DType inferred, TensorOptions options);
Tensor full_like_impl(TensorView source, const Tensor& value, TensorOptions options);
Tensor arange_impl(double start, double end, double step, bool integral, TensorOptions options);
Tensor arange_impl(std::int64_t start, std::int64_t end, std::int64_t step, TensorOptions options);
}  // namespace detail

/// Every element `value`; the dtype follows the C++ type of `value` like
/// Python's: bool -> bool, integers -> int64, floating -> float32.
/// https://pytorch.org/docs/stable/generated/torch.full.html
template <class T>
requires std::is_arithmetic_v<T> Tensor full(IntList sizes, T value, TensorOptions options = {});

/// [0, end) with step 1. Integer arguments give int64, floating ones float32,
/// as in Python. https://pytorch.org/docs/stable/generated/torch.arange.html
template <class T>
requires std::is_arithmetic_v<T> Tensor arange(T end, TensorOptions options = {});
/// [start, end) in steps of `step`.
template <class A, class B, class C = int>
requires(std::is_arithmetic_v<A>&& std::is_arithmetic_v<B>&& std::is_arithmetic_v<C>) Tensor
    arange(A start, B end, C step = 1, TensorOptions options = {});

/// `steps` values from `start` to `end` inclusive, evenly spaced.
/// https://pytorch.org/docs/stable/generated/torch.linspace.html
Tensor linspace(double start, double end, std::int64_t steps, TensorOptions options = {});

/// The n x m identity (m defaults to n). https://pytorch.org/docs/stable/generated/torch.eye.html
Tensor eye(std::int64_t n, TensorOptions options = {});
/// The n x m identity.
Tensor eye(std::int64_t n, std::int64_t m, TensorOptions options = {});

/// Uniform on [0, 1). https://pytorch.org/docs/stable/generated/torch.rand.html
Tensor rand(IntList sizes, TensorOptions options = {});
/// The same drawn from `generator`: equal to Python's
/// `torch.rand(sizes, generator=torch.Generator().manual_seed(seed))`.
Tensor rand(IntList sizes, Generator& generator, TensorOptions options = {});
/// Standard normal. https://pytorch.org/docs/stable/generated/torch.randn.html
Tensor randn(IntList sizes, TensorOptions options = {});
/// The same drawn from `generator`, equal to Python's with `generator=`.
Tensor randn(IntList sizes, Generator& generator, TensorOptions options = {});
/// Exponentially distributed samples of rate `lambd` (floating dtypes,
/// float32 by default) drawn from `generator`: the values of Python's
/// `torch.empty(sizes, dtype=...).exponential_(lambd, generator=g)` with
/// `g = torch.Generator().manual_seed(seed)`. Throws fp::Error unless
/// lambd > 0. https://pytorch.org/docs/stable/generated/torch.Tensor.exponential_.html
Tensor exponential(IntList sizes, Generator& generator, double lambd = 1.0,
                   TensorOptions options = {});
/// Integers uniform on [low, high); int64 unless options say otherwise.
/// https://pytorch.org/docs/stable/generated/torch.randint.html
Tensor randint(std::int64_t high, IntList sizes, TensorOptions options = {});
/// Integers uniform on [low, high).
Tensor randint(std::int64_t low, std::int64_t high, IntList sizes, TensorOptions options = {});
/// The same drawn from `generator`, equal to Python's with `generator=`.
Tensor randint(std::int64_t low, std::int64_t high, IntList sizes, Generator& generator,
               TensorOptions options = {});

// The `*_like` forms: the source's sizes, dtype and device unless options
// override them. Python: torch.zeros_like(t) and friends.
/// Uninitialised, shaped like `source`. Python: `torch.empty_like(source)`.
Tensor empty_like(TensorView source, TensorOptions options = {});
/// Zeros shaped like `source`. Python: `torch.zeros_like(source)`.
Tensor zeros_like(TensorView source, TensorOptions options = {});
/// Ones shaped like `source`. Python: `torch.ones_like(source)`.
Tensor ones_like(TensorView source, TensorOptions options = {});
/// `value` everywhere, shaped like `source`. Python: `torch.full_like(source, value)`.
template <class T>
requires std::is_arithmetic_v<T> Tensor full_like(TensorView source, T value,
                                                  TensorOptions options = {});
/// Uniform on [0, 1), shaped like `source`. Python: `torch.rand_like(source)`.
Tensor rand_like(TensorView source, TensorOptions options = {});
/// Standard normal, shaped like `source`. Python: `torch.randn_like(source)`.
Tensor randn_like(TensorView source, TensorOptions options = {});
/// Integers uniform on [low, high), shaped like `source`. Python: `torch.randint_like(source, low, high)`.
Tensor randint_like(TensorView source, std::int64_t low, std::int64_t high,
                    TensorOptions options = {});

// --- template definitions ------------------------------------------------------

namespace detail {
template <class T>
constexpr DType python_dtype_of_number() {
  if constexpr (std::is_same_v<T, bool>) return DType::Bool;
  if constexpr (std::is_integral_v<T>) return DType::I64;
  return DType::F32;  // torch's default dtype
}

/// A 0-dim CPU tensor holding `value` exactly (int64, float64 or bool).
template <class T>
Tensor exact_scalar(T value) {
  if constexpr (std::is_same_v<T, bool>) return tensor(value);
  if constexpr (std::is_integral_v<T>) {
    if constexpr (std::is_unsigned_v<T> && sizeof(T) == 8) return tensor(value);  // uint64 exact
    return tensor(static_cast<std::int64_t>(value));
  }
  return tensor(static_cast<double>(value));
}
}  // namespace detail

template <class T>
requires std::is_arithmetic_v<T> Tensor full(IntList sizes, T value, TensorOptions options) {
  return detail::full_impl(sizes, detail::exact_scalar(value), detail::python_dtype_of_number<T>(),
                           options);
}

template <class T>
requires std::is_arithmetic_v<T> Tensor full_like(TensorView source, T value,
                                                  TensorOptions options) {
  return detail::full_like_impl(source, detail::exact_scalar(value), options);
}

template <class T>
requires std::is_arithmetic_v<T> Tensor arange(T end, TensorOptions options) {
  return arange(T{0}, end, T{1}, options);
}

template <class A, class B, class C>
requires(std::is_arithmetic_v<A>&& std::is_arithmetic_v<B>&& std::is_arithmetic_v<C>) Tensor
    arange(A start, B end, C step, TensorOptions options) {
  constexpr bool integral = std::is_integral_v<A> && std::is_integral_v<B> && std::is_integral_v<C>;
  if constexpr (integral) {
    return detail::arange_impl(static_cast<std::int64_t>(start), static_cast<std::int64_t>(end),
                               static_cast<std::int64_t>(step), options);
  } else {
    return detail::arange_impl(static_cast<double>(start), static_cast<double>(end),
                               static_cast<double>(step), false, options);
  }
}

}  // namespace fp
