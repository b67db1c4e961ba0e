// detail::TensorAccess: the library's way into what the tensor classes keep
// private — the borrow checker's state and views made from a raw handle.
//
// Users see only the std::span-like surface of Tensor, TensorView and
// TensorMutView. The code that makes views or writes through them (the
// fp::aten wrappers, safetensors, the dispatch glue) need the borrow state too; they go through
// this one friend, so "internal" is a compile-time fact, not a comment.
#pragma once

#include "flash_powder/abi/tensor_handle.h"

namespace fp {

class Tensor;
class TensorView;
class TensorMutView;
class TensorArg;
class MutableTensor;
namespace abi {
struct Arg;
}  // namespace abi

namespace detail {

class BorrowState;
class TensorBase;
struct ViewSource;

struct TensorAccess {
  /// A view with its own handle that borrows from `owner` (may be null: unchecked).
  static TensorView view(abi::TensorHandle handle, BorrowState* owner, const char* origin);
  /// A mutable view with its own handle that borrows `parent` exclusively.
  static TensorMutView mut_view(abi::TensorHandle handle, BorrowState* parent, const char* origin);

  /// The state a view borrows from (null when unchecked).
  static BorrowState* borrowed_from(const TensorView& view) noexcept;
  /// The state views of this tensor register with (made on first use).
  static BorrowState* borrow_state(const Tensor& tensor);
  static BorrowState* borrow_state(const TensorMutView& view);
  /// That state if it exists yet (null otherwise or when unchecked).
  static BorrowState* existing_borrow_state(const Tensor& tensor) noexcept;
  static BorrowState* existing_borrow_state(const TensorMutView& view) noexcept;
  /// What a view taken of this tensor borrows: a view of a view borrows the
  /// same owner; views of a Tensor or TensorMutView borrow its own state.
  static ViewSource view_source(const Tensor& tensor);
  static ViewSource view_source(const TensorView& view);
  static ViewSource view_source(const TensorMutView& view);
  /// Throws fp::BorrowError if `operation` may not write now.
  static void check_mutation(const Tensor& tensor, const char* operation, int own_arguments = 0);
  static void check_mutation(const TensorMutView& view, const char* operation,
                             int own_arguments = 0);
  /// Gives up the handle of `tensor`, which becomes undefined.
  static abi::TensorHandle release(Tensor&& tensor) noexcept;

  // --- arguments (core/tensor_arg.h) ---
  /// Any tensor as an argument whose borrows nobody tracks (for operations
  /// that only read it and return new tensors).
  static TensorArg unchecked(const TensorBase& tensor) noexcept;
  static TensorArg unchecked(abi::RawTensor tensor) noexcept;
  /// The borrow state a view of `argument` registers with (the tensor's own,
  /// or the one a TensorView borrows from); null when unchecked.
  static BorrowState* borrowed_from(const TensorArg& argument);
  /// The borrow state `argument` is registered with as a view (a TensorView's
  /// owner); null for a Tensor or a TensorMutView.
  static BorrowState* viewing(const TensorArg& argument) noexcept;
  /// The argument as fp::dispatch captures it (a written one lent for writing).
  static abi::Arg to_arg(const TensorArg& argument);
  static abi::Arg to_arg(const MutableTensor& argument);
  /// The state views of the written tensor register with (made on first use).
  static BorrowState* borrow_state(const MutableTensor& argument);
  /// Throws fp::BorrowError if `operation` may not write `argument` now.
  static void check_mutation(const MutableTensor& argument, const char* operation,
                             int own_arguments);
};

}  // namespace detail
}  // namespace fp
