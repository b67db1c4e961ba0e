// ArgTraits<T>: how fp::dispatch captures a C++ value as an abi::Arg.
//
// Specialised here for numbers, strings, the vocabulary types, optionals,
// sequences and raw handles; core specialises it for its tensor types
// (core/detail/tensor_traits.h). A type without a specialisation is a compile
// error that names it.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "flash_powder/abi/ivalue.h"

namespace fp::abi {

// ArgTraits<T>::make(const T&) -> Arg captures a C++ value.
// Tensor-like types also set `is_tensor = true` and provide `raw(const T&)`.

template <class T, class Enable = void>
struct ArgTraits;  // no conversion: a compile error names T

/// Captures `value`; a non-const lvalue of a type whose ArgTraits has
/// `make_writable` (fp::Tensor, fp::TensorMutView) is lent for writing.
template <class T>
Arg to_arg(T&& value) {
  using Traits = ArgTraits<std::remove_cvref_t<T>>;
  constexpr bool lent_for_writing =
      std::is_lvalue_reference_v<T> && !std::is_const_v<std::remove_reference_t<T>>;
  if constexpr (lent_for_writing && requires { Traits::make_writable(value); }) {
    return Traits::make_writable(value);
  } else {
    return Traits::make(value);
  }
}

template <class T>
inline constexpr bool is_tensor_like_v = false;
template <class T>
requires requires {
  ArgTraits<T>::is_tensor;
}
inline constexpr bool is_tensor_like_v<T> = ArgTraits<T>::is_tensor;

template <class T>
requires(std::is_integral_v<T> && !std::is_same_v<T, bool>) struct ArgTraits<T> {
  static Arg make(T value) {
    if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(std::int64_t)) {
      if (value > static_cast<T>(INT64_MAX)) {
        throw Error(ErrorCode::BadArgument,
                    "fp::dispatch: the integer " + std::to_string(value) +
                        " does not fit the int64 every torch int argument is");
      }
    }
    return {static_cast<std::int64_t>(value)};
  }
};

template <class T>
requires std::is_floating_point_v<T>
struct ArgTraits<T> {
  static Arg make(T value) { return {static_cast<double>(value)}; }
};

template <>
struct ArgTraits<bool> {
  static Arg make(bool value) { return {value}; }
};

template <class T>
requires(std::is_same_v<T, DType> || std::is_same_v<T, Layout> || std::is_same_v<T, MemoryFormat> ||
         std::is_same_v<T, Device>) struct ArgTraits<T> {
  static Arg make(T value) { return {value}; }
};

template <>
struct ArgTraits<std::nullopt_t> {
  static Arg make(std::nullopt_t) { return {None{}}; }
};

template <>
struct ArgTraits<None> {
  static Arg make(None) { return {None{}}; }
};

template <class T>
requires(std::is_same_v<T, std::string> || std::is_same_v<T, std::string_view> ||
         std::is_same_v<T, const char*> || std::is_same_v<T, char*>) struct ArgTraits<T> {
  static Arg make(std::string_view value) { return {std::string(value)}; }
};

template <std::size_t N>
struct ArgTraits<char[N]> {
  static Arg make(const char (&value)[N]) { return {std::string(value)}; }
};

// Raw handles are the escape hatch below the tensor types: no borrow rules,
// and libtorch may write through them.
template <>
struct ArgTraits<RawTensor> {
  static constexpr bool is_tensor = true;
  static RawTensor raw(RawTensor tensor) { return tensor; }
  static Arg make(RawTensor tensor) {
    Arg arg{tensor};
    arg.writable = true;
    return arg;
  }
};

template <>
struct ArgTraits<TensorHandle> {
  static constexpr bool is_tensor = true;
  static RawTensor raw(const TensorHandle& tensor) { return tensor.get(); }
  static Arg make(const TensorHandle& tensor) { return ArgTraits<RawTensor>::make(tensor.get()); }
};

template <>
struct ArgTraits<RawGenerator> {
  static Arg make(RawGenerator generator) { return {generator}; }
};

template <>
struct ArgTraits<GeneratorHandle> {
  static Arg make(const GeneratorHandle& generator) { return {generator.get()}; }
};

template <class T>
struct ArgTraits<std::optional<T>> {
  static Arg make(const std::optional<T>& value) { return value ? to_arg(*value) : Arg{None{}}; }
};

/// Sequences: int[], float[], bool[], Tensor[] and Tensor?[].
template <class Range>
struct SequenceArg {
  using Element = std::remove_cvref_t<decltype(*std::begin(std::declval<const Range&>()))>;

  static Arg make(const Range& range) {
    if constexpr (std::is_same_v<Element, bool>) {
      return {std::vector<bool>(std::begin(range), std::end(range))};
    } else if constexpr (std::is_integral_v<Element>) {
      std::vector<std::int64_t> out;
      out.reserve(std::size(range));
      for (const auto& item : range)
        out.push_back(std::get<std::int64_t>(to_arg(item).value));
      return {std::move(out)};
    } else if constexpr (std::is_floating_point_v<Element>) {
      return {std::vector<double>(std::begin(range), std::end(range))};
    } else if constexpr (is_tensor_like_v<Element>) {
      std::vector<RawTensor> out;
      out.reserve(std::size(range));
      for (const auto& item : range)
        out.push_back(ArgTraits<Element>::raw(item));
      return {std::move(out)};
    } else {
      static_assert(is_optional_tensor, "fp::dispatch: unsupported list element type");
      std::vector<RawTensor> out;
      for (const auto& item : range) {
        out.push_back(item ? ArgTraits<typename Element::value_type>::raw(*item) : nullptr);
      }
      return {std::move(out)};
    }
  }

 private:
  template <class E>
  static constexpr bool optional_of_tensor() {
    if constexpr (requires { typename E::value_type; }) {
      return std::is_same_v<E, std::optional<typename E::value_type>> &&
             is_tensor_like_v<typename E::value_type>;
    }
    return false;
  }
  static constexpr bool is_optional_tensor = optional_of_tensor<Element>();
};

template <class T, class Alloc>
struct ArgTraits<std::vector<T, Alloc>> : SequenceArg<std::vector<T, Alloc>> {};
template <class T, std::size_t N>
struct ArgTraits<std::span<T, N>> : SequenceArg<std::span<T, N>> {};
template <class T, std::size_t N>
struct ArgTraits<std::array<T, N>> : SequenceArg<std::array<T, N>> {};
template <class T>
struct ArgTraits<std::initializer_list<T>> : SequenceArg<std::initializer_list<T>> {};

}  // namespace fp::abi
