// The member templates of the tensor types (indexing) and detail::TensorAccess,
// defined once the types they need are complete. Included by core/tensor.h.
#pragma once

#include <array>
#include <span>

#include "flash_powder/core/tensor.h"
#include "flash_powder/core/tensor_arg.h"

namespace fp {

inline TensorArg::TensorArg(const Tensor& tensor) noexcept
    : raw_(tensor.raw()), source_(&tensor), kind_(Kind::Tensor) {}
inline TensorArg::TensorArg(const TensorView& view) noexcept
    : raw_(view.raw()), source_(&view), kind_(Kind::View) {}
inline TensorArg::TensorArg(const TensorMutView& view) noexcept
    : raw_(view.raw()), source_(&view), kind_(Kind::MutView) {}
inline detail::BorrowState* TensorArg::viewing() const noexcept {
  return kind_ == Kind::View
             ? detail::TensorAccess::borrowed_from(*static_cast<const TensorView*>(source_))
             : nullptr;
}
inline abi::RawTensor MutableTensor::raw() const noexcept {
  return tensor_ ? tensor_->raw() : view_->raw();
}

}  // namespace fp

namespace fp::detail {

inline TensorView TensorAccess::view(abi::TensorHandle handle, BorrowState* owner,
                                     const char* origin) {
  return TensorView(std::move(handle), owner, origin);
}
inline TensorMutView TensorAccess::mut_view(abi::TensorHandle handle, BorrowState* parent,
                                            const char* origin) {
  return TensorMutView(std::move(handle), parent, origin);
}
inline BorrowState* TensorAccess::borrowed_from(const TensorView& view) noexcept {
  return view.owner_;
}
inline BorrowState* TensorAccess::borrow_state(const Tensor& tensor) {
  return tensor.borrow_state();
}
inline BorrowState* TensorAccess::borrow_state(const TensorMutView& view) {
  return view.borrow_state();
}
inline BorrowState* TensorAccess::existing_borrow_state(const Tensor& tensor) noexcept {
  return tensor.borrow_.load();
}
inline BorrowState* TensorAccess::existing_borrow_state(const TensorMutView& view) noexcept {
  return view.own_.load();
}
inline ViewSource TensorAccess::view_source(const Tensor& tensor) {
  return {tensor.raw(), tensor.borrow_state()};
}
inline ViewSource TensorAccess::view_source(const TensorView& view) {
  return {view.raw(), view.owner_};  // a view of a view borrows the same owner
}
inline ViewSource TensorAccess::view_source(const TensorMutView& view) {
  return {view.raw(), view.borrow_state()};  // views of a mutable view freeze it
}
inline void TensorAccess::check_mutation(const Tensor& tensor, const char* operation,
                                         int own_arguments) {
  tensor.check_mutation(operation, own_arguments);
}
inline void TensorAccess::check_mutation(const TensorMutView& view, const char* operation,
                                         int own_arguments) {
  view.check_mutation(operation, own_arguments);
}
inline abi::TensorHandle TensorAccess::release(Tensor&& tensor) noexcept {
  return std::move(tensor.handle_);
}
inline TensorArg TensorAccess::unchecked(const TensorBase& tensor) noexcept {
  return TensorArg(tensor.raw());
}
inline TensorArg TensorAccess::unchecked(abi::RawTensor tensor) noexcept {
  return TensorArg(tensor);
}
inline BorrowState* TensorAccess::borrowed_from(const TensorArg& argument) {
  return argument.borrowed_from();
}
inline BorrowState* TensorAccess::viewing(const TensorArg& argument) noexcept {
  return argument.viewing();
}
inline abi::Arg TensorAccess::to_arg(const TensorArg& argument) {
  return argument.to_arg();
}
inline abi::Arg TensorAccess::to_arg(const MutableTensor& argument) {
  return argument.to_arg();
}
inline BorrowState* TensorAccess::borrow_state(const MutableTensor& argument) {
  return argument.borrow_state();
}
inline void TensorAccess::check_mutation(const MutableTensor& argument, const char* operation,
                                         int own_arguments) {
  argument.check_mutation(operation, own_arguments);
}

/// The handle of `raw[items...]` (basic indexing: always a view).
abi::TensorHandle index_view_handle(abi::RawTensor raw, std::span<const ViewIndex> items);
/// `self[items...]` with index tensors among the items: a new Tensor.
Tensor index_copy(TensorArg self, std::span<const TensorIndex> items);
/// `self[items...] = values` (or `+=` when accumulating).
void index_put(MutableTensor self, std::span<const TensorIndex> items, TensorArg values,
               bool accumulate);

template <class Derived>
template <class... Items>
TensorView ViewOps<Derived>::i(const Items&... items) const {
  const std::array<ViewIndex, sizeof...(Items)> list{to_view_index(items)...};
  const ViewSource self = source();
  return view_of(self, index_view_handle(self.raw, list), "i()");
}

template <class Derived>
template <class... Items>
TensorMutView MutableAccess<Derived>::i_mut(const Items&... items) {
  const std::array<ViewIndex, sizeof...(Items)> list{to_view_index(items)...};
  Derived& self = static_cast<Derived&>(*this);
  return TensorAccess::mut_view(index_view_handle(self.raw(), list),
                                TensorAccess::borrow_state(self), "i_mut()");
}

template <class... Items>
Tensor TensorBase::index(const Items&... items) const {
  const std::array<TensorIndex, sizeof...(Items)> list{to_tensor_index(items)...};
  return index_copy(as_arg(), list);
}

}  // namespace fp::detail
