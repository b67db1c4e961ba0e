// detail::ViewOps: the members of all three tensor types that return views
// (indexing with i(), view, permute, transpose, ...). Bodies in src/ops.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

#include "flash_powder/core/detail/tensor_access.h"
#include "flash_powder/core/detail/tensor_base.h"
#include "flash_powder/core/detail/tensor_methods.h"

namespace fp::detail {

/// A view-making operation's input: the handle and the borrow state the
/// resulting view registers with.
struct ViewSource {
  abi::RawTensor raw;
  BorrowState* owner;
};

TensorView view_of(const ViewSource& source, abi::TensorHandle handle, const char* origin);

/// The operations that return views (TensorView) of a tensor, for all three
/// tensor types. Each view keeps its own handle and registers with the borrow
/// checker as a view of this tensor (detail::TensorAccess says how).
template <class Derived>
class ViewOps : public ViewMethods<Derived> {
 public:
  /// Basic indexing, always a view: `t.i(0)`, `t.i(fp::slice(1, 3), fp::all)`,
  /// `t.i(fp::ellipsis, -1)`, `t.i(fp::newaxis)` (see core/index.h).
  template <class... Items>
  TensorView i(const Items&... items) const;

  // The other view-making methods are generated: ViewMethods in
  // core/detail/tensor_methods.h.

 private:
  ViewSource source() const {
    return TensorAccess::view_source(static_cast<const Derived&>(*this));
  }
};

}  // namespace fp::detail
