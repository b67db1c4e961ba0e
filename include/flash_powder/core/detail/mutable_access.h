// detail::MutableAccess: the writing members that fp::Tensor and
// fp::TensorMutView share (in-place ops, compound assignment, data_mut, at_mut).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

#include "flash_powder/core/detail/tensor_access.h"
#include "flash_powder/core/detail/tensor_base.h"
#include "flash_powder/core/detail/tensor_methods.h"

namespace fp::detail {

/// The write access shared by Tensor and TensorMutView. Writes are checked by
/// the borrow checker (`Derived::check_mutation`, a friend's privilege).
/// In-place operations return the tensor itself, like PyTorch's.
template <class Derived>
class MutableAccess : public InPlaceMethods<Derived> {
 public:
  /// Basic indexing for writing: a TensorMutView whose writes reach this
  /// tensor. While it lives, no other view of this tensor may (borrow check).
  template <class... Items>
  TensorMutView i_mut(const Items&... items);

  // The in-place methods and compound assignments are generated:
  // InPlaceMethods in core/detail/tensor_methods.h.

  /// All elements, writable, like `std::span<T>`. Same checks as data<T>().
  template <Element T>
  std::span<T> data_mut() {
    self().check_mutation("data_mut()");
    return {static_cast<T*>(self().checked_mutable_data(dtype_of<T>, "data_mut")),
            static_cast<std::size_t>(self().numel())};
  }
  /// A writable reference to the element at `indices`; bounds checked.
  template <Element T>
  T& at_mut(std::span<const std::int64_t> indices) {
    self().check_mutation("at_mut()");
    return *static_cast<T*>(self().checked_mutable_element(dtype_of<T>, indices, "at_mut"));
  }
  /// The same with the indices as a braced list: `t.at_mut<float>({0, 1})`.
  template <Element T>
  T& at_mut(std::initializer_list<std::int64_t> indices) {
    return at_mut<T>(std::span<const std::int64_t>(indices.begin(), indices.size()));
  }

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
};

}  // namespace fp::detail
