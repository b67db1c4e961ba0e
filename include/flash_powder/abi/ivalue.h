// Arguments and results of dispatched ops, before and after StableIValue boxing.
//
// libtorch's dispatcher takes a stack of 64-bit StableIValues whose meaning
// depends on the op's schema (a tensor handle, an int, a list handle, ...). A
// C++ value is first captured as an `Arg`; `fp::dispatch` then boxes it for the
// schema type it meets, so an int can fill a `float` argument, a vector a
// fixed-size `int[2]`, and a wrong type is an fp::Error instead of a crash.
// Results come back as `Returned`, which owns whatever libtorch handed over.
//
// Other layers teach the dispatcher their types by specialising ArgTraits and
// ReturnTraits (core does so for fp::Tensor, fp::TensorView, ...).
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "flash_powder/abi/error.h"
#include "flash_powder/abi/generator_handle.h"
#include "flash_powder/abi/tensor_handle.h"

namespace fp::abi {

/// The absent value: Python's None, C++'s std::nullopt.
struct None {
  friend constexpr bool operator==(None, None) = default;
};

/// One argument on its way to the dispatcher. Tensors and generators are
/// borrowed: the caller keeps them alive until the call returns.
/// A null RawTensor inside `tensors` stands for None (a `Tensor?[]` element).
struct Arg {
  using Value =
      std::variant<None, RawTensor, std::int64_t, double, bool, DType, Layout, MemoryFormat, Device,
                   std::string, RawGenerator, std::vector<std::int64_t>, std::vector<double>,
                   std::vector<bool>, std::vector<RawTensor>>;
  Value value;

  // --- what keeps fp::dispatch honest about tensors (set by core's ArgTraits) ---
  /// The caller lent this tensor for writing: a non-const fp::Tensor or an
  /// fp::TensorMutView. Only such tensors may fill a `Tensor(a!)` argument.
  bool writable = false;
  /// For an owner (Tensor, TensorMutView): the borrow state its views register
  /// with (core/borrow.h); null when none exists or checks are compiled out.
  const void* owner_state = nullptr;
  /// For a view: the borrow state it is registered with.
  const void* viewed_state = nullptr;
  /// Throws fp::BorrowError if `owner_state` may not be written by `operation`
  /// now; `own_arguments` views of it are arguments of this very call.
  void (*check_mutation)(const void* owner_state, const char* operation,
                         int own_arguments) = nullptr;

  /// How the value reads in an error message, e.g. "int", "Tensor[]".
  std::string_view type_name() const;
};

/// One result of a dispatched op; owns the handles libtorch returned.
struct Returned {
  using Value =
      std::variant<None, TensorHandle, std::int64_t, double, bool, DType, Layout, MemoryFormat,
                   Device, std::string, GeneratorHandle, std::vector<TensorHandle>,
                   std::vector<std::int64_t>, std::vector<double>, std::vector<bool>>;
  Value value;
  /// The schema marks this result as (possibly) sharing memory with an
  /// argument, e.g. `transpose -> Tensor(a)` or in-place `add_ -> Tensor(a!)`.
  bool aliases_argument = false;

  std::string_view type_name() const;
};

/// The results of one call, with the schema they were produced by (for messages).
struct Results {
  std::vector<Returned> values;
  std::string op;           ///< "aten::max.dim"
  std::string_view schema;  ///< "max.dim(Tensor self, int dim, bool keepdim=False) -> ..."

  /// Throws fp::Error("<op>: <problem>; the schema is <schema>").
  [[noreturn]] void fail(std::string_view problem) const;
};

// ---------------------------------------------------------------------------
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
        throw Error("fp::dispatch: the integer " + std::to_string(value) +
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
      for (const auto& item : range)
        out.push_back(std::get<std::int64_t>(to_arg(item).value));
      return {std::move(out)};
    } else if constexpr (std::is_floating_point_v<Element>) {
      return {std::vector<double>(std::begin(range), std::end(range))};
    } else if constexpr (is_tensor_like_v<Element>) {
      std::vector<RawTensor> out;
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

// ---------------------------------------------------------------------------
// ReturnTraits<R>::take(Results&&) -> R converts what an op returned.
// `from_one(Returned&&, const Results&)` converts one value (used for tuples).

template <class R, class Enable = void>
struct ReturnTraits;

namespace detail {
template <class T>
T take_alternative(Returned&& value, const Results& results, std::string_view wanted) {
  if (auto* held = std::get_if<T>(&value.value)) return std::move(*held);
  results.fail("returns " + std::string(value.type_name()) + " where the caller asked for " +
               std::string(wanted));
}

inline Returned& only_value(Results& results, std::string_view wanted) {
  if (results.values.size() != 1) {
    results.fail("returns " + std::to_string(results.values.size()) +
                 " values where the caller asked for one " + std::string(wanted));
  }
  return results.values.front();
}
}  // namespace detail

template <>
struct ReturnTraits<void> {
  static void take(Results&&) {}
};

/// Plain values: int64_t (any integral type), double, bool, DType, ...
template <class T>
requires(std::is_arithmetic_v<T> || std::is_same_v<T, DType> || std::is_same_v<T, Layout> ||
         std::is_same_v<T, MemoryFormat> || std::is_same_v<T, Device> ||
         std::is_same_v<T, std::string> || std::is_same_v<T, TensorHandle> ||
         std::is_same_v<T, GeneratorHandle> || std::is_same_v<T, std::vector<TensorHandle>> ||
         std::is_same_v<T, std::vector<std::int64_t>> || std::is_same_v<T, std::vector<double>> ||
         std::is_same_v<T, std::vector<bool>>) struct ReturnTraits<T> {
  static T from_one(Returned&& value, const Results& results) {
    if constexpr (std::is_same_v<T, bool>) {
      return detail::take_alternative<bool>(std::move(value), results, "bool");
    } else if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(
          detail::take_alternative<std::int64_t>(std::move(value), results, "int"));
    } else if constexpr (std::is_floating_point_v<T>) {
      if (auto* integer = std::get_if<std::int64_t>(&value.value)) return static_cast<T>(*integer);
      return static_cast<T>(detail::take_alternative<double>(std::move(value), results, "float"));
    } else {
      return detail::take_alternative<T>(std::move(value), results, label());
    }
  }
  static T take(Results&& results) {
    return from_one(std::move(detail::only_value(results, "value")), results);
  }

 private:
  /// The schema's name for T, for messages.
  static constexpr std::string_view label() {
    if constexpr (std::is_same_v<T, DType>) return "ScalarType";
    if constexpr (std::is_same_v<T, Layout>) return "Layout";
    if constexpr (std::is_same_v<T, MemoryFormat>) return "MemoryFormat";
    if constexpr (std::is_same_v<T, Device>) return "Device";
    if constexpr (std::is_same_v<T, std::string>) return "str";
    if constexpr (std::is_same_v<T, TensorHandle>) return "Tensor";
    if constexpr (std::is_same_v<T, GeneratorHandle>) return "Generator";
    if constexpr (std::is_same_v<T, std::vector<TensorHandle>>) return "Tensor[]";
    if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) return "int[]";
    if constexpr (std::is_same_v<T, std::vector<double>>) return "float[]";
    if constexpr (std::is_same_v<T, std::vector<bool>>) return "bool[]";
    return "that type";
  }
};

template <class... Ts>
struct ReturnTraits<std::tuple<Ts...>> {
  static std::tuple<Ts...> take(Results&& results) {
    if (results.values.size() != sizeof...(Ts)) {
      results.fail("returns " + std::to_string(results.values.size()) +
                   " values where the caller asked for a tuple of " +
                   std::to_string(sizeof...(Ts)));
    }
    return take_each(results, std::index_sequence_for<Ts...>{});
  }

 private:
  template <std::size_t... I>
  static std::tuple<Ts...> take_each(Results& results, std::index_sequence<I...>) {
    return std::tuple<Ts...>{ReturnTraits<Ts>::from_one(std::move(results.values[I]), results)...};
  }
};

}  // namespace fp::abi
