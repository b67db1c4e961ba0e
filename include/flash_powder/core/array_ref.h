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
  constexpr ArrayRef(std::initializer_list<T> values)
      : data_(values.begin()), size_(values.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  constexpr ArrayRef(std::span<const T> values) : data_(values.data()), size_(values.size()) {}
  template <class Alloc>
  constexpr ArrayRef(const std::vector<T, Alloc>& values)
      : data_(values.data()), size_(values.size()) {}
  template <std::size_t N>
  constexpr ArrayRef(const std::array<T, N>& values) : data_(values.data()), size_(N) {}
  // NOLINTEND(google-explicit-constructor)
  constexpr ArrayRef(const T* data, std::size_t size) : data_(data), size_(size) {}

  constexpr const T* data() const {
    return data_;
  }
  constexpr std::size_t size() const {
    return size_;
  }
  constexpr bool empty() const {
    return size_ == 0;
  }
  constexpr const T* begin() const {
    return data_;
  }
  constexpr const T* end() const {
    return data_ + size_;
  }
  constexpr const T& operator[](std::size_t i) const {
    return data_[i];
  }
  // Implicit on purpose: an ArrayRef passes where a span is taken.
  // NOLINTNEXTLINE(google-explicit-constructor)
  constexpr operator std::span<const T>() const {
    return {data_, size_};
  }
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
