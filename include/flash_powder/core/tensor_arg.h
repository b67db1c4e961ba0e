// fp::TensorArg and fp::MutableTensor: how ops and methods take tensors.
//
//   fp::TensorArg      a tensor an op reads: a Tensor (a temporary too), a
//                      TensorView or a TensorMutView
//   fp::MutableTensor  a tensor an op writes: a non-const Tensor or a
//                      TensorMutView (never a const reference, a TensorView or a
//                      temporary Tensor, whose change would be lost)
//
// Like std::string_view they refer to the caller's tensor and are meant for
// parameters: valid until the call returns.
#pragma once

#include <cstdint>

#include "flash_powder/abi/ivalue.h"
#include "flash_powder/abi/tensor_handle.h"

namespace fp {

class Tensor;
class TensorView;
class TensorMutView;
namespace detail {
class TensorBase;
class BorrowState;
struct TensorAccess;
}  // namespace detail

/// A tensor an op reads. Converts implicitly from `const Tensor&` (temporaries
/// included: they live until the call returns), `TensorView` and
/// `TensorMutView`, so `fp::aten::abs(fp::aten::neg(x))` works.
class TensorArg {
 public:
  // Defined in core/tensor_inl.h, where the tensor types are complete.
  // Implicit on purpose: any tensor kind passes as an argument.
  // NOLINTBEGIN(google-explicit-constructor)
  /// A tensor (a temporary lives until the call returns).
  TensorArg(const Tensor& tensor) noexcept;
  /// A view.
  TensorArg(const TensorView& view) noexcept;
  /// A writable view, read.
  TensorArg(const TensorMutView& view) noexcept;
  // NOLINTEND(google-explicit-constructor)

  /// The libtorch handle (not owned).
  abi::RawTensor raw() const noexcept { return raw_; }

 private:
  friend struct detail::TensorAccess;
  /// The borrow state a view of this argument registers with (the tensor's
  /// own, or the one a TensorView borrows from); null when unchecked.
  detail::BorrowState* borrowed_from() const;
  /// The borrow state this argument is registered with as a view (a
  /// TensorView's owner); null for a Tensor or a TensorMutView.
  detail::BorrowState* viewing() const noexcept;
  /// This argument as fp::dispatch captures it.
  abi::Arg to_arg() const;

  enum class Kind : std::uint8_t { Tensor, View, MutView, Unchecked };
  explicit TensorArg(abi::RawTensor raw) noexcept
      : raw_(raw), source_(nullptr), kind_(Kind::Unchecked) {}
  abi::RawTensor raw_;
  const void* source_;
  Kind kind_;
};

/// A tensor an op writes to (`Tensor(a!)` in a schema: `self` of in-place ops,
/// `out` of out= variants). Converts implicitly from a non-const `Tensor&`
/// and from a `TensorMutView` (a temporary one too: its writes reach its
/// parent). Before the op runs, the borrow checker makes sure no view of the
/// tensor is alive except the op's own arguments.
class MutableTensor {
 public:
  // Implicit on purpose: any tensor kind passes as an argument.
  // NOLINTBEGIN(google-explicit-constructor)
  /// A tensor the op writes in place.
  MutableTensor(Tensor& tensor) noexcept : tensor_(&tensor) {}
  /// A writable view the op writes through.
  MutableTensor(TensorMutView& view) noexcept : view_(&view) {}
  /// A temporary writable view (its writes reach its parent).
  MutableTensor(TensorMutView&& view) noexcept : view_(&view) {}
  // NOLINTEND(google-explicit-constructor)
  /// A const tensor cannot be written, and a temporary's change would be lost.
  MutableTensor(const Tensor&) = delete;
  MutableTensor(Tensor&&) = delete;
  MutableTensor(const TensorMutView&) = delete;
  /// Views are read-only; write through a TensorMutView (`i_mut()`).
  MutableTensor(const TensorView&) = delete;

  /// The libtorch handle (not owned).
  abi::RawTensor raw() const noexcept;

 private:
  friend struct detail::TensorAccess;
  /// The state views of this tensor register with (made on first use).
  detail::BorrowState* borrow_state() const;
  /// Throws fp::BorrowError if `operation` may not write now.
  void check_mutation(const char* operation, int own_arguments) const;
  /// This argument as fp::dispatch captures it (lent for writing).
  abi::Arg to_arg() const;

  Tensor* tensor_ = nullptr;
  TensorMutView* view_ = nullptr;
};

}  // namespace fp
