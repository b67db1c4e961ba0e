// detail::TensorAccess: the library's way into what the tensor classes keep
// private — the borrow checker's state and views made from a raw handle.
//
// Users see only the std::span-like surface of Tensor, TensorView and
// TensorMutView. The layers that make views or write through them (ops,
// safetensors, the dispatch glue) need the borrow state too; they go through
// this one friend, so "internal" is a compile-time fact, not a comment.
#pragma once

#include "flash_powder/abi/tensor_handle.h"

namespace fp {

class Tensor;
class TensorView;
class TensorMutView;

namespace detail {

class BorrowState;
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
};

}  // namespace detail
}  // namespace fp
