// ReturnTraits<R>: how fp::dispatch converts what an op returned to the C++
// type the caller asked for. A wrong type or count is an fp::Error naming the
// op and its schema (Results::fail). core specialises it for its tensor types.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "flash_powder/abi/ivalue.h"

namespace fp::abi {

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
