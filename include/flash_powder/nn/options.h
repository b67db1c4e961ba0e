// The argument types of fp::functional and the fp::nn layers that Python
// spells as "an int or a tuple": `kernel_size=3` meaning (3, 3), `stride=None`
// meaning "the default", `padding='same'`. They make designated initialisers
// read like Python's keyword arguments:
//
//     fp::nn::Conv2d conv(3, 8, 3, {.stride = 2, .padding = {1, 2}});
//     fp::functional::max_pool2d(x, 2, {.stride = 1});
//     fp::functional::interpolate(x, {.scale_factor = 2.0, .mode = "bilinear"});
//
// Unlike fp::IntList they own their values, so they can live in option structs.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "flash_powder/abi/error.h"

namespace fp::nn {

namespace detail {
[[noreturn]] void throw_wrong_count(std::size_t wanted, std::size_t got);
}  // namespace detail

/// N values given as one (repeated N times) or as a list of N, like torch's
/// `_pair(3) == (3, 3)`. Throws fp::Error for a list of another length.
template <std::size_t N, class T = std::int64_t>
class ExpandingArray {
 public:
  // Implicit on purpose: an int or a list, like PyTorch's kernel_size=3 or (3, 5).
  // NOLINTBEGIN(google-explicit-constructor)
  /// One value for every dimension: `3` is (3, 3).
  ExpandingArray(T value) { values_.fill(value); }
  /// One value per dimension: `{3, 5}`.
  ExpandingArray(std::initializer_list<T> values) { assign(values.begin(), values.size()); }
  /// One value per dimension, from a vector.
  ExpandingArray(const std::vector<T>& values) { assign(values.data(), values.size()); }
  /// One value per dimension, from an array.
  ExpandingArray(const std::array<T, N>& values) : values_(values) {}
  // NOLINTEND(google-explicit-constructor)

  /// The N values.
  const std::array<T, N>& values() const { return values_; }
  /// The N values as a vector.
  std::vector<T> vec() const { return {values_.begin(), values_.end()}; }
  /// The value for dimension `i` (< N).
  const T& operator[](std::size_t i) const { return values_[i]; }
  /// N.
  static constexpr std::size_t size() { return N; }
  /// The first value, for range-for.
  auto begin() const { return values_.begin(); }
  /// One past the last value.
  auto end() const { return values_.end(); }
  /// Equal when all values are.
  friend bool operator==(const ExpandingArray&, const ExpandingArray&) = default;

 private:
  void assign(const T* values, std::size_t count) {
    if (count == 1) {
      values_.fill(values[0]);
    } else if (count == N) {
      std::copy(values, values + N, values_.begin());
    } else {
      detail::throw_wrong_count(N, count);
    }
  }
  std::array<T, N> values_{};
};

/// An ExpandingArray that may be absent (Python's None), e.g. the `stride`
/// of pooling, which defaults to the kernel size.
template <std::size_t N, class T = std::int64_t>
class OptionalExpandingArray {
 public:
  OptionalExpandingArray() = default;
  // Implicit on purpose: an int or a list, like PyTorch's kernel_size=3 or (3, 5).
  // NOLINTBEGIN(google-explicit-constructor)
  /// Absent (Python's None).
  OptionalExpandingArray(std::nullopt_t) {}
  /// One value for every dimension.
  OptionalExpandingArray(T value) : value_(value) {}
  /// One value per dimension.
  OptionalExpandingArray(std::initializer_list<T> values) : value_(ExpandingArray<N, T>(values)) {}
  /// The given values.
  OptionalExpandingArray(const ExpandingArray<N, T>& values) : value_(values) {}
  // NOLINTEND(google-explicit-constructor)

  /// Whether values were given.
  bool has_value() const { return value_.has_value(); }
  /// The values; has_value() must be true.
  const ExpandingArray<N, T>& operator*() const { return *value_; }
  /// The values, or `fallback` when absent.
  const ExpandingArray<N, T>& value_or(const ExpandingArray<N, T>& fallback) const {
    return value_ ? *value_ : fallback;
  }

 private:
  std::optional<ExpandingArray<N, T>> value_;
};

/// The output size of adaptive pooling: one size for every dimension, or one
/// per dimension where std::nullopt keeps the input's size (Python's None):
/// `7`, `{7, 5}`, `{std::nullopt, 7}`.
template <std::size_t N>
class OutputSize {
 public:
  // Implicit on purpose: an int or a list, like PyTorch's kernel_size=3 or (3, 5).
  // NOLINTBEGIN(google-explicit-constructor)
  /// One size for every dimension.
  OutputSize(std::int64_t value) { values_.fill(value); }
  // NOLINTEND(google-explicit-constructor)
  /// One size per dimension, std::nullopt keeping the input's.
  OutputSize(std::initializer_list<std::optional<std::int64_t>> values) {
    if (values.size() == 1) {
      values_.fill(*values.begin());
    } else if (values.size() == N) {
      std::copy(values.begin(), values.end(), values_.begin());
    } else {
      detail::throw_wrong_count(N, values.size());
    }
  }
  /// The sizes, std::nullopt keeping the input's.
  const std::array<std::optional<std::int64_t>, N>& values() const { return values_; }

 private:
  std::array<std::optional<std::int64_t>, N> values_{};
};

/// Python's `padding` of convolutions: numbers like an ExpandingArray, or one
/// of the strings "valid" (no padding) and "same" (output as large as the
/// input, stride 1 only).
template <std::size_t N>
class ConvPadding {
 public:
  // Implicit on purpose: an int or a list, like PyTorch's kernel_size=3 or (3, 5).
  // NOLINTBEGIN(google-explicit-constructor)
  /// The same padding on every side of every dimension.
  ConvPadding(std::int64_t value) : numbers_(value) {}
  /// One padding per dimension.
  ConvPadding(std::initializer_list<std::int64_t> values) : numbers_(values) {}
  /// One padding per dimension.
  ConvPadding(const ExpandingArray<N>& values) : numbers_(values) {}
  // A string literal binds to the array reference; `0` would be ambiguous with `const char*`.
  /// "valid" or "same", as a string literal.
  template <std::size_t K>
  ConvPadding(const char (&mode)[K]) : numbers_(0), mode_(mode) {}
  /// "valid" or "same".
  ConvPadding(std::string mode) : numbers_(0), mode_(std::move(mode)) {}
  // NOLINTEND(google-explicit-constructor)

  /// True when given as a string ("same" or "valid").
  bool is_mode() const { return mode_.has_value(); }
  /// The string; is_mode() must be true.
  const std::string& mode() const { return *mode_; }
  /// The numbers (zeros when given as a string).
  const ExpandingArray<N>& numbers() const { return numbers_; }

 private:
  ExpandingArray<N> numbers_;
  std::optional<std::string> mode_;
};

/// A value per spatial dimension when their number is known only from the
/// input (interpolate's `size` and `scale_factor`): absent (None), one value
/// for every dimension, or a list with one per dimension.
template <class T>
class PerDimension {
 public:
  PerDimension() = default;
  // Implicit on purpose: an int or a list, like PyTorch's kernel_size=3 or (3, 5).
  // NOLINTBEGIN(google-explicit-constructor)
  /// Absent (Python's None).
  PerDimension(std::nullopt_t) {}
  /// One value for every dimension.
  PerDimension(T value) : values_{value}, single_(true), set_(true) {}
  /// One value per dimension.
  PerDimension(std::initializer_list<T> values) : values_(values), set_(true) {}
  /// One value per dimension.
  PerDimension(std::vector<T> values) : values_(std::move(values)), set_(true) {}
  // NOLINTEND(google-explicit-constructor)

  /// Whether values were given.
  bool has_value() const { return set_; }
  /// Given as one value rather than a list.
  bool is_single() const { return single_; }
  /// The values as given.
  const std::vector<T>& values() const { return values_; }
  /// The values for `dims` dimensions: the single value repeated, or the list.
  std::vector<T> expand(std::size_t dims) const {
    return single_ ? std::vector<T>(dims, values_.front()) : values_;
  }

 private:
  std::vector<T> values_;
  bool single_ = false;
  bool set_ = false;
};

/// One dimension or several, like Python's `dim: int | tuple[int, ...]`:
/// `1`, `-1`, `{0, 2}`. Negative dimensions count from the end.
class Dims {
 public:
  // Implicit on purpose: an int or a list, like PyTorch's dim=1 or (0, 2).
  // NOLINTBEGIN(google-explicit-constructor)
  Dims(std::int64_t dim) : values_{dim} {}
  Dims(std::initializer_list<std::int64_t> dims) : values_(dims) {}
  Dims(std::vector<std::int64_t> dims) : values_(std::move(dims)) {}
  // NOLINTEND(google-explicit-constructor)

  const std::vector<std::int64_t>& values() const { return values_; }

 private:
  std::vector<std::int64_t> values_;
};

}  // namespace fp::nn
