// Making tensors from C++ values, like `torch.tensor(...)`, and viewing user
// memory, like `torch.from_blob`.
//
// The C++ type of the values decides the dtype, exactly as written:
//
//     fp::tensor(5)            int32   (an int literal)
//     fp::tensor(int64_t{5})   int64   (Python's torch.tensor(5))
//     fp::tensor(2.5)          float64 (a double literal)
//     fp::tensor(2.5f)         float32 (Python's torch.tensor(2.5))
//     fp::tensor(true)         bool
//     fp::tensor({{1.f, 2.f}, {3.f, 4.f}})   float32 [2, 2]
//
// Pass a DType to convert: `fp::tensor({1.0, 2.0}, fp::DType::F32)`.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

#include "flash_powder/core/array_ref.h"
#include "flash_powder/core/element_type.h"
#include "flash_powder/core/tensor.h"

namespace fp {

namespace detail {
/// The strides of a contiguous (row-major) tensor of `sizes`.
std::vector<std::int64_t> contiguous_strides(IntList sizes);
/// A CPU tensor of `sizes` and dtype `dtype` holding a copy of `bytes`.
Tensor tensor_from_bytes(const void* bytes, std::span<const std::int64_t> sizes, DType dtype);
/// `tensor` converted to `dtype` the way `torch.tensor(values, dtype=...)`
/// converts: integer targets reject values they cannot hold (fp::Error).
Tensor converted(Tensor tensor, DType dtype);

template <class T>
struct Nested {
  // std::vector<bool> packs bits; bools are gathered as bytes instead.
  std::vector<std::conditional_t<std::is_same_v<T, bool>, std::uint8_t, T>> values;
  std::vector<std::int64_t> sizes;
};

/// Flattens nested initializer lists, checking that they are not ragged.
template <class T>
void flatten_into(const T& value, Nested<T>& out, std::size_t) {
  out.values.push_back(value);
}
template <class T, class Inner>
void flatten_into(std::initializer_list<Inner> list, Nested<T>& out, std::size_t depth);
void check_not_ragged(std::vector<std::int64_t>& sizes, std::size_t depth, std::int64_t length);

template <class T, class Inner>
void flatten_into(std::initializer_list<Inner> list, Nested<T>& out, std::size_t depth) {
  check_not_ragged(out.sizes, depth, static_cast<std::int64_t>(list.size()));
  for (const auto& item : list)
    flatten_into(item, out, depth + 1);
}

template <class T>
using List1 = std::initializer_list<T>;
template <class T>
using List2 = std::initializer_list<List1<T>>;
template <class T>
using List3 = std::initializer_list<List2<T>>;
template <class T>
using List4 = std::initializer_list<List3<T>>;

template <class T, class List>
Tensor tensor_from_nested(const List& list) {
  Nested<T> nested;
  flatten_into(list, nested, 0);
  return tensor_from_bytes(nested.values.data(), nested.sizes, dtype_of<T>);
}
}  // namespace detail

/// A 0-dim tensor holding `value`. Python: `torch.tensor(value)`.
template <Element T>
Tensor tensor(T value) {
  return detail::tensor_from_bytes(&value, {}, dtype_of<T>);
}
/// `value` converted to `dtype`. Python: `torch.tensor(value, dtype=...)`.
template <Element T>
Tensor tensor(T value, DType dtype) {
  return detail::converted(tensor(value), dtype);
}

/// A 1-D tensor with a copy of `values`. Python: `torch.tensor([...])`.
template <Element T>
Tensor tensor(std::span<const T> values) {
  const std::int64_t size = static_cast<std::int64_t>(values.size());
  return detail::tensor_from_bytes(values.data(), std::span(&size, 1), dtype_of<T>);
}
/// A 1-D tensor with a copy of a vector's values (`std::vector<bool>` too).
template <Element T>
Tensor tensor(const std::vector<T>& values) {
  if constexpr (std::is_same_v<T, bool>) {
    const std::vector<std::uint8_t> bytes(values.begin(), values.end());
    const std::int64_t size = static_cast<std::int64_t>(bytes.size());
    return detail::tensor_from_bytes(bytes.data(), std::span(&size, 1), DType::Bool);
  } else {
    return tensor(std::span<const T>(values));
  }
}
/// The same converted to `dtype`.
template <Element T>
Tensor tensor(const std::vector<T>& values, DType dtype) {
  return detail::converted(tensor(values), dtype);
}

/// Nested lists, up to 4-D: `fp::tensor({{1.f, 2.f}, {3.f, 4.f}})`.
/// Ragged lists throw fp::Error, like Python.
// The parameter types are spelled out, not detail::List1..4: through the
// aliases clang 14 deduces no T from a one-element list such as `{x}`.
template <Element T>
Tensor tensor(std::initializer_list<T> values) {
  return detail::tensor_from_nested<T>(values);
}
/// 2-D nested lists.
template <Element T>
Tensor tensor(std::initializer_list<std::initializer_list<T>> values) {
  return detail::tensor_from_nested<T>(values);
}
/// 3-D nested lists.
template <Element T>
Tensor tensor(std::initializer_list<std::initializer_list<std::initializer_list<T>>> values) {
  return detail::tensor_from_nested<T>(values);
}
/// 4-D nested lists.
template <Element T>
Tensor tensor(
    std::initializer_list<std::initializer_list<std::initializer_list<std::initializer_list<T>>>>
        values) {
  return detail::tensor_from_nested<T>(values);
}
/// Nested lists converted to `dtype`, like `torch.tensor([...], dtype=...)`.
template <Element T>
Tensor tensor(std::initializer_list<T> values, DType dtype) {
  return detail::converted(tensor(values), dtype);
}
/// 2-D nested lists converted to `dtype`.
template <Element T>
Tensor tensor(std::initializer_list<std::initializer_list<T>> values, DType dtype) {
  return detail::converted(tensor(values), dtype);
}
/// 3-D nested lists converted to `dtype`.
template <Element T>
Tensor tensor(std::initializer_list<std::initializer_list<std::initializer_list<T>>> values,
              DType dtype) {
  return detail::converted(tensor(values), dtype);
}
/// 4-D nested lists converted to `dtype`.
template <Element T>
Tensor tensor(
    std::initializer_list<std::initializer_list<std::initializer_list<std::initializer_list<T>>>>
        values,
    DType dtype) {
  return detail::converted(tensor(values), dtype);
}

/// A writable view over user memory, like `torch.from_blob`: no copy is made,
/// and the memory must outlive every tensor that uses it (as with std::span).
/// Throws fp::Error when sizes/strides reach past `bytes.size()`. Empty
/// `strides` means contiguous.
TensorMutView from_blob(std::span<std::byte> bytes, IntList sizes, IntList strides, DType dtype);
/// The same over read-only memory: a TensorView.
TensorView from_blob(std::span<const std::byte> bytes, IntList sizes, IntList strides, DType dtype);

/// Typed forms: `fp::from_blob(std::span(values), {2, 3})`.
template <Element T>
TensorMutView from_blob(std::span<T> values, IntList sizes, IntList strides = {}) {
  return from_blob(std::as_writable_bytes(values), sizes, strides, dtype_of<T>);
}
/// The same over read-only values: a TensorView.
template <Element T>
TensorView from_blob(std::span<const T> values, IntList sizes, IntList strides = {}) {
  return from_blob(std::as_bytes(values), sizes, strides, dtype_of<T>);
}

}  // namespace fp
