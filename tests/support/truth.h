// fp_test::truth<T>("python expression"): an expected value computed at test
// time by the PyTorch that runs beside the test.
//
// Values that depend on libtorch's kernels (BLAS, oneDNN, vectorised math,
// reductions, interpolation, random sampling paths) differ between CPUs and
// torch releases, so they are not written into the source. The test names the
// Python expression instead, next to the Python block that defines its names:
//
//     /*
//     #|PYTHON
//     r = F.conv2d(x, w)
//     */
//     EXPECT_PYTHON(values(F::conv2d(x, w)), truth<std::vector<float>>("values(r)"));
//
// `tools/python_truth.py evaluate` (the CTest fixture `truth_cache`) runs each
// test's Python, in source order, with the torch version and CPU settings of
// the run (ATEN_CPU_CAPABILITY, MKL_ENABLE_INSTRUCTIONS, ONEDNN_MAX_CPU_ISA,
// MKL_CBWR),
// into build/truth/truth-<torch>-<settings>.json; truth<T>() reads the file
// whose name matches this process's loaded torch and settings, under the
// current test's `Suite.Name`. A missing file, test or expression, or a value
// that does not convert to T, throws: the test fails with the reason.
//
// T may be bool, an arithmetic type, std::string, std::complex<U>, fp::DType,
// fp::Device, or std::vector of any of these (nested).
#pragma once

#include <flash_powder/flash_powder.h>

#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace fp_test {

namespace truth_detail {

/// A Python value as the cache holds it (kept free of the JSON library, so
/// that test files compile quickly).
struct Value {
  enum class Kind { None, Bool, Int, UInt, Float, String, List, Complex, DType, Device };
  Kind kind = Kind::None;
  bool boolean = false;
  std::int64_t integer = 0;
  std::uint64_t unsigned_integer = 0;
  double number = 0;
  std::string text;          // String, DType (torch's name), Device
  std::vector<Value> items;  // List, Complex (real, imaginary)
};

/// The cached value of `expression` for the running test.
const Value& lookup(std::string_view expression);

[[noreturn]] void conversion_error(const Value& value, std::string_view wanted);

fp::DType dtype(const Value& value);
fp::Device device(const Value& value);

template <class T>
struct is_vector : std::false_type {};
template <class T, class A>
struct is_vector<std::vector<T, A>> : std::true_type {};

template <class T>
struct is_complex : std::false_type {};
template <class T>
struct is_complex<std::complex<T>> : std::true_type {};

template <class T>
T floating(const Value& value) {
  switch (value.kind) {
    case Value::Kind::Float:
      return static_cast<T>(value.number);
    case Value::Kind::Int:
      return static_cast<T>(value.integer);
    case Value::Kind::UInt:
      return static_cast<T>(value.unsigned_integer);
    case Value::Kind::String:
      if (value.text == "nan") return std::numeric_limits<T>::quiet_NaN();
      if (value.text == "inf") return std::numeric_limits<T>::infinity();
      if (value.text == "-inf") return -std::numeric_limits<T>::infinity();
      break;
    default:
      break;
  }
  conversion_error(value, "a floating-point number");
}

template <class T>
T integer(const Value& value) {
  if (value.kind == Value::Kind::Int && std::in_range<T>(value.integer))
    return static_cast<T>(value.integer);
  if (value.kind == Value::Kind::UInt && std::in_range<T>(value.unsigned_integer))
    return static_cast<T>(value.unsigned_integer);
  conversion_error(value, "an integer in the C++ type's range");
}

template <class T>
T convert(const Value& value) {
  if constexpr (std::is_same_v<T, bool>) {
    if (value.kind != Value::Kind::Bool) conversion_error(value, "a bool");
    return value.boolean;
  } else if constexpr (std::is_floating_point_v<T>) {
    return floating<T>(value);
  } else if constexpr (std::is_integral_v<T>) {
    return integer<T>(value);
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (value.kind != Value::Kind::String) conversion_error(value, "a string");
    return value.text;
  } else if constexpr (std::is_same_v<T, fp::DType>) {
    return dtype(value);
  } else if constexpr (std::is_same_v<T, fp::Device>) {
    return device(value);
  } else if constexpr (is_complex<T>::value) {
    using Real = typename T::value_type;
    if (value.kind == Value::Kind::Complex)
      return T(floating<Real>(value.items.at(0)), floating<Real>(value.items.at(1)));
    return T(floating<Real>(value), Real{0});
  } else if constexpr (is_vector<T>::value) {
    if (value.kind != Value::Kind::List) conversion_error(value, "a list");
    T result;
    result.reserve(value.items.size());
    for (const Value& item : value.items)
      result.push_back(convert<typename T::value_type>(item));
    return result;
  } else {
    static_assert(sizeof(T) == 0, "truth<T>: no conversion from a Python value to T");
  }
}

}  // namespace truth_detail

/// The value of the Python `expression` in the running test's namespace, as
/// computed by the PyTorch beside this process (see the top of this file).
template <class T>
T truth(std::string_view expression) {
  return truth_detail::convert<T>(truth_detail::lookup(expression));
}

/// Where the cache for this process's torch and CPU settings lives.
std::string truth_cache_path();

}  // namespace fp_test
