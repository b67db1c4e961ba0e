// Teaching fp::dispatch (abi/arg_traits.h, abi/return_traits.h) about the three tensor types: how
// each becomes an argument (with its borrow state) and how results become
// Tensors. Included at the end of core/tensor.h.
#pragma once

#include <type_traits>
#include <utility>
#include <vector>

#include "flash_powder/abi/ivalue.h"

namespace fp::detail {
/// An independent Tensor from a handle that may share memory with another.
Tensor independent(abi::TensorHandle handle);
}  // namespace fp::detail

namespace fp::abi {

template <class T>
requires(std::is_same_v<T, Tensor> || std::is_same_v<T, TensorMutView>) struct ArgTraits<T> {
  static constexpr bool is_tensor = true;
  static RawTensor raw(const T& tensor) { return tensor.raw(); }
  static Arg make(const T& tensor) {
    Arg arg{tensor.raw()};
    // Made if need be: a view among the results registers with it.
    arg.owner_guard = fp::detail::TensorAccess::borrow_state(tensor);
    return arg;
  }
  /// A non-const Tensor or TensorMutView: lent for writing.
  static Arg make_writable(T& tensor) {
    Arg arg = make(tensor);
    arg.writable = true;
    return arg;
  }
};

template <>
struct ArgTraits<TensorView> {
  static constexpr bool is_tensor = true;
  static RawTensor raw(const TensorView& view) { return view.raw(); }
  static Arg make(const TensorView& view) {
    Arg arg{view.raw()};
    arg.viewed_guard = fp::detail::TensorAccess::borrowed_from(view);
    return arg;
  }
};

template <>
struct ReturnTraits<Tensor> {
  static Tensor from_one(Returned&& value, const Results& results) {
    const bool shared = value.aliases_argument;
    TensorHandle handle =
        detail::take_alternative<TensorHandle>(std::move(value), results, "a Tensor");
    return shared ? fp::detail::independent(std::move(handle)) : Tensor(std::move(handle));
  }
  static Tensor take(Results&& results) {
    return from_one(std::move(detail::only_value(results, "Tensor")), results);
  }
};

/// A result as a view: where the schema says it shares memory with an
/// argument (`transpose -> Tensor(a)`), a TensorView borrowing from that
/// argument's owner, as the typed fp::aten wrappers return it; otherwise a
/// TensorView owning the new tensor.
template <>
struct ReturnTraits<TensorView> {
  static TensorView from_one(Returned&& value, const Results& results) {
    const bool shared = value.aliases_argument;
    const WriteGuard* guard = value.alias_guard;
    TensorHandle handle =
        detail::take_alternative<TensorHandle>(std::move(value), results, "a TensorView");
    if (!shared) return TensorView(Tensor(std::move(handle)));
    // Every WriteGuard is core's BorrowState (core/borrow.h).
    auto* owner =
        const_cast<fp::detail::BorrowState*>(static_cast<const fp::detail::BorrowState*>(guard));
    return fp::detail::TensorAccess::view(std::move(handle), owner, "fp::dispatch");
  }
  static TensorView take(Results&& results) {
    return from_one(std::move(detail::only_value(results, "TensorView")), results);
  }
};

template <>
struct ReturnTraits<std::vector<Tensor>> {
  static std::vector<Tensor> from_one(Returned&& value, const Results& results) {
    const bool shared = value.aliases_argument;
    auto handles = detail::take_alternative<std::vector<TensorHandle>>(std::move(value), results,
                                                                       "a list of Tensors");
    std::vector<Tensor> tensors;
    tensors.reserve(handles.size());
    for (auto& handle : handles) {
      tensors.push_back(shared ? fp::detail::independent(std::move(handle))
                               : Tensor(std::move(handle)));
    }
    return tensors;
  }
  static std::vector<Tensor> take(Results&& results) {
    return from_one(std::move(detail::only_value(results, "Tensor[]")), results);
  }
};

}  // namespace fp::abi
