// detail::MutableAccess: the writing members that fp::Tensor and
// fp::TensorMutView share (in-place ops, compound assignment, data_mut, at_mut).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

#include "flash_powder/core/detail/tensor_access.h"
#include "flash_powder/core/detail/tensor_base.h"

namespace fp::detail {

/// The write access shared by Tensor and TensorMutView. Writes are checked by
/// the borrow checker (`Derived::check_mutation`, a friend's privilege).
/// In-place operations return the tensor itself, like PyTorch's.
template <class Derived>
class MutableAccess {
 public:
  /// Basic indexing for writing: a TensorMutView whose writes reach this
  /// tensor. While it lives, no other view of this tensor may (borrow check).
  template <class... Items>
  TensorMutView i_mut(const Items&... items);

  Derived& add_(TensorArg other);
  Derived& add_(Scalar other);
  Derived& sub_(TensorArg other);
  Derived& sub_(Scalar other);
  Derived& mul_(TensorArg other);
  Derived& mul_(Scalar other);
  Derived& div_(TensorArg other, std::optional<std::string_view> rounding_mode = std::nullopt);
  Derived& div_(Scalar other, std::optional<std::string_view> rounding_mode = std::nullopt);
  Derived& remainder_(TensorArg other);
  Derived& remainder_(Scalar other);
  Derived& pow_(TensorArg exponent);
  Derived& pow_(Scalar exponent);
  Derived& neg_();
  Derived& abs_();
  Derived& sqrt_();
  Derived& exp_();
  Derived& log_();
  Derived& clamp_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
  /// Every element `value`. Python: `t.fill_(value)`.
  Derived& fill_(Scalar value);
  Derived& fill_(TensorArg value);
  Derived& zero_();
  /// This tensor's elements from `source` (broadcast, converted). Python: `t.copy_(source)`.
  Derived& copy_(TensorArg source);
  Derived& masked_fill_(TensorArg mask, Scalar value);
  Derived& masked_fill_(TensorArg mask, TensorArg value);
  /// `t[indices] = values` (or `+=` with `accumulate`); `indices` as for index().
  Derived& index_put_(std::initializer_list<TensorIndex> indices, TensorArg values,
                      bool accumulate = false);
  Derived& index_put_(std::initializer_list<TensorIndex> indices, Scalar value);

  Derived& operator+=(TensorArg other) { return add_(other); }
  Derived& operator+=(Scalar other) { return add_(other); }
  Derived& operator-=(TensorArg other) { return sub_(other); }
  Derived& operator-=(Scalar other) { return sub_(other); }
  Derived& operator*=(TensorArg other) { return mul_(other); }
  Derived& operator*=(Scalar other) { return mul_(other); }
  Derived& operator/=(TensorArg other) { return div_(other); }
  Derived& operator/=(Scalar other) { return div_(other); }
  Derived& operator%=(TensorArg other) { return remainder_(other); }
  Derived& operator%=(Scalar other) { return remainder_(other); }
  /// Bitwise, in place, for bool and integer tensors. Python: `t &= m`
  /// (`__iand__`), `|=`, `^=`, `<<=`, `>>=`.
  Derived& operator&=(TensorArg other);
  Derived& operator&=(Scalar other);
  Derived& operator|=(TensorArg other);
  Derived& operator|=(Scalar other);
  Derived& operator^=(TensorArg other);
  Derived& operator^=(Scalar other);
  Derived& operator<<=(TensorArg other);
  Derived& operator<<=(Scalar other);
  Derived& operator>>=(TensorArg other);
  Derived& operator>>=(Scalar other);

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
  template <Element T>
  T& at_mut(std::initializer_list<std::int64_t> indices) {
    return at_mut<T>(std::span<const std::int64_t>(indices.begin(), indices.size()));
  }

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
};

}  // namespace fp::detail
