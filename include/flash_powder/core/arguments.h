// Parameter types of op functions (the generated fp::aten::* and the ops built
// on them): how C++ callers hand tensors, lists and optional values to an op.
//
//   fp::TensorArg, fp::MutableTensor (core/tensor_arg.h) for single tensors
//   fp::TensorList         `Tensor[]`: a braced list, a vector or a span
//   fp::OptionalTensorList `Tensor?[]`: the same with std::nullopt for None
//   fp::MutableTensorList  `Tensor(a!)[]`: tensors the op writes
//   fp::OptionalIntList    `int[]?`: std::nullopt, one value, a braced list, a vector
//
// Like std::string_view and fp::IntList, these refer to the caller's values
// and are meant for parameters: they stay valid until the call returns, not
// beyond.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "flash_powder/core/array_ref.h"
#include "flash_powder/core/tensor.h"
#include "flash_powder/core/tensor_arg.h"

namespace fp {

/// `Tensor[]`: `{a, b}` (any TensorArg), `std::vector<Tensor>`,
/// `std::vector<TensorView>`, `std::span<const Tensor>`, `std::span<const TensorView>`.
class TensorList {
 public:
  TensorList() = default;
  // Implicit on purpose: a braced list or a container passes where PyTorch takes a list.
  // NOLINTBEGIN(google-explicit-constructor)
  /// `{a, b}`: any mix of Tensor, TensorView and TensorMutView (the list must outlive the call).
  TensorList(std::initializer_list<TensorArg> tensors) noexcept
      : items_(tensors.begin(), tensors.size()) {}
  /// The tensors of a vector.
  TensorList(const std::vector<Tensor>& tensors) : TensorList(std::span<const Tensor>(tensors)) {}
  /// The views of a vector.
  TensorList(const std::vector<TensorView>& views)
      : TensorList(std::span<const TensorView>(views)) {}
  /// The tensors of a span.
  TensorList(std::span<const Tensor> tensors);
  /// The views of a span.
  TensorList(std::span<const TensorView> views);
  // NOLINTEND(google-explicit-constructor)
  TensorList(const TensorList&) = delete;
  TensorList& operator=(const TensorList&) = delete;

  /// The tensors, as op arguments.
  std::span<const TensorArg> items() const noexcept { return items_; }
  /// How many.
  std::size_t size() const noexcept { return items_.size(); }

 private:
  std::vector<TensorArg> owned_;
  std::span<const TensorArg> items_;
};

/// `Tensor?[]` (e.g. the indices of `index.Tensor`): `{rows, std::nullopt}`,
/// or a vector of Tensors, TensorViews or optionals of them.
class OptionalTensorList {
 public:
  OptionalTensorList() = default;
  // Implicit on purpose: a braced list or a container passes where PyTorch takes a list.
  // NOLINTBEGIN(google-explicit-constructor)
  /// `{a, std::nullopt}`: tensors, views and Nones.
  OptionalTensorList(std::initializer_list<std::optional<TensorArg>> tensors) noexcept
      : items_(tensors.begin(), tensors.size()) {}
  /// The tensors of a vector (none of them None).
  OptionalTensorList(const std::vector<Tensor>& tensors);
  /// The views of a vector (none of them None).
  OptionalTensorList(const std::vector<TensorView>& views);
  /// The tensors of a vector, std::nullopt for None.
  OptionalTensorList(const std::vector<std::optional<Tensor>>& tensors);
  /// The views of a vector, std::nullopt for None.
  OptionalTensorList(const std::vector<std::optional<TensorView>>& views);
  /// The items of a span, std::nullopt for None.
  OptionalTensorList(std::span<const std::optional<TensorArg>> items) noexcept : items_(items) {}
  /// The items of a vector, std::nullopt for None.
  OptionalTensorList(const std::vector<std::optional<TensorArg>>& items) noexcept : items_(items) {}
  // NOLINTEND(google-explicit-constructor)
  OptionalTensorList(const OptionalTensorList&) = delete;
  OptionalTensorList& operator=(const OptionalTensorList&) = delete;

  /// The items, std::nullopt for None.
  std::span<const std::optional<TensorArg>> items() const noexcept { return items_; }

 private:
  std::vector<std::optional<TensorArg>> owned_;
  std::span<const std::optional<TensorArg>> items_;
};

/// `Tensor(a!)[]`, tensors an op writes (the `_foreach_*_` ops):
/// `{a, b}` (non-const Tensors or TensorMutViews), `std::vector<Tensor>&`,
/// `std::span<Tensor>`.
class MutableTensorList {
 public:
  // Implicit on purpose: a braced list or a container passes where PyTorch takes a list.
  // NOLINTBEGIN(google-explicit-constructor)
  /// `{a, b}`: non-const Tensors and TensorMutViews.
  MutableTensorList(std::initializer_list<MutableTensor> tensors)
      : items_(tensors.begin(), tensors.size()) {}
  /// The tensors of a vector, written in place.
  MutableTensorList(std::vector<Tensor>& tensors) : MutableTensorList(std::span<Tensor>(tensors)) {}
  /// The tensors of a span, written in place.
  MutableTensorList(std::span<Tensor> tensors);
  // NOLINTEND(google-explicit-constructor)
  MutableTensorList(const std::vector<Tensor>&) = delete;
  MutableTensorList(const MutableTensorList&) = delete;
  MutableTensorList& operator=(const MutableTensorList&) = delete;

  /// The tensors, as written op arguments.
  std::span<const MutableTensor> items() const noexcept { return items_; }

 private:
  std::vector<MutableTensor> owned_;
  std::span<const MutableTensor> items_;
};

/// An optional list (`int[]?`, `float[]?`): std::nullopt (None), one value,
/// a braced list, a vector, an fp::ArrayRef. Unlike std::optional<IntList>,
/// a single `int` converts without dangling.
template <class T>
class OptionalArrayRef {
 public:
  constexpr OptionalArrayRef() = default;
  // Implicit on purpose: a braced list or a container passes where PyTorch takes a list.
  // NOLINTBEGIN(google-explicit-constructor)
  /// None.
  constexpr OptionalArrayRef(std::nullopt_t) noexcept {}
  /// One value (an `int[2]` takes it for both).
  constexpr OptionalArrayRef(const T& value) noexcept : value_(ArrayRef<T>(value)) {}
  /// A braced list.
  constexpr OptionalArrayRef(std::initializer_list<T> values) noexcept
      : value_(ArrayRef<T>(values)) {}
  /// The values of an ArrayRef.
  constexpr OptionalArrayRef(ArrayRef<T> values) noexcept : value_(values) {}
  /// The values of a span.
  constexpr OptionalArrayRef(std::span<const T> values) noexcept : value_(ArrayRef<T>(values)) {}
  /// The values of a vector.
  template <class Alloc>
  constexpr OptionalArrayRef(const std::vector<T, Alloc>& values) noexcept
      : value_(ArrayRef<T>(values)) {}
  /// The values of an array.
  template <std::size_t N>
  constexpr OptionalArrayRef(const std::array<T, N>& values) noexcept
      : value_(ArrayRef<T>(values)) {}
  /// The values of an optional vector: None when it is empty.
  template <class Alloc>
  constexpr OptionalArrayRef(const std::optional<std::vector<T, Alloc>>& values) noexcept {
    if (values) value_ = ArrayRef<T>(*values);
  }
  // NOLINTEND(google-explicit-constructor)

  /// Whether a list is given (not None).
  constexpr bool has_value() const noexcept { return value_.has_value(); }
  /// Whether a list is given (not None).
  constexpr explicit operator bool() const noexcept { return value_.has_value(); }
  /// The list; has_value() must be true.
  constexpr const ArrayRef<T>& operator*() const { return *value_; }
  /// The list; has_value() must be true.
  constexpr const ArrayRef<T>* operator->() const { return &*value_; }

 private:
  std::optional<ArrayRef<T>> value_;
};

/// `int[]?`, e.g. the `dim` of `sum.dim_IntList`.
using OptionalIntList = OptionalArrayRef<std::int64_t>;

}  // namespace fp
