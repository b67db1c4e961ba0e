// fp::ArrayRef<T> and fp::IntList: read-only sequences as function parameters.
//
// Like std::span<const T>, plus what C++ callers of a Python-shaped API need:
// a braced list (`fp::zeros({2, 3})`) and, as in Python, a single value where
// a fixed-size list is expected (`kernel_size = 3` meaning [3, 3]). Like
// std::span it does not own its elements: use it for parameters, not members.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

namespace fp {

/// A read-only list of values passed to a function, like `std::span<const T>` that a
/// single value or a braced list also converts to: what ops take for `int[]` (fp::IntList)
/// and `float[]`. It does not own the values: keep it a parameter.
template <class T>
class ArrayRef {
 public:
  constexpr ArrayRef() = default;
  // Implicit on purpose: a value, a braced list or a container passes as a list.
  // NOLINTBEGIN(google-explicit-constructor)
  /// A single value: a one-element list (and, where a fixed size is
  /// expected, that value repeated, as Python does).
  constexpr ArrayRef(const T& value) : data_(&value), size_(1) {}
// A braced list lives until the end of the full expression that holds the
// call, which is all a parameter needs; GCC warns about the pointer anyway.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  /// A braced list, `{1, 2}`.
  constexpr ArrayRef(std::initializer_list<T> values)
      : data_(values.begin()), size_(values.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  /// The values of a span.
  constexpr ArrayRef(std::span<const T> values) : data_(values.data()), size_(values.size()) {}
  /// The values of a vector.
  template <class Alloc>
  constexpr ArrayRef(const std::vector<T, Alloc>& values)
      : data_(values.data()), size_(values.size()) {}
  /// The values of an array.
  template <std::size_t N>
  constexpr ArrayRef(const std::array<T, N>& values) : data_(values.data()), size_(N) {}
  // NOLINTEND(google-explicit-constructor)
  /// `size` values from `data`.
  constexpr ArrayRef(const T* data, std::size_t size) : data_(data), size_(size) {}

  /// The first value.
  constexpr const T* data() const {
    return data_;
  }
  /// How many values.
  constexpr std::size_t size() const {
    return size_;
  }
  /// Whether there are none.
  constexpr bool empty() const {
    return size_ == 0;
  }
  /// The first value, for range-for.
  constexpr const T* begin() const {
    return data_;
  }
  /// One past the last value.
  constexpr const T* end() const {
    return data_ + size_;
  }
  /// The value at `i` (< size()).
  constexpr const T& operator[](std::size_t i) const {
    return data_[i];
  }
  // Implicit on purpose: an ArrayRef passes where a span is taken.
  // NOLINTNEXTLINE(google-explicit-constructor)
  /// The values as a span.
  constexpr operator std::span<const T>() const {
    return {data_, size_};
  }
  /// A copy of the values.
  std::vector<T> vec() const {
    return {begin(), end()};
  }

 private:
  const T* data_ = nullptr;
  std::size_t size_ = 0;
};

/// Sizes, strides, dimensions: Python's `int[]`.
using IntList = ArrayRef<std::int64_t>;

}  // namespace fp
