// detail::ViewOps: the members of all three tensor types that return views
// (indexing with i(), view, permute, transpose, ...). Bodies in src/ops.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

#include "flash_powder/core/detail/tensor_access.h"
#include "flash_powder/core/detail/tensor_base.h"

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
class ViewOps {
 public:
  /// Basic indexing, always a view: `t.i(0)`, `t.i(fp::slice(1, 3), fp::all)`,
  /// `t.i(fp::ellipsis, -1)`, `t.i(fp::newaxis)` (see core/index.h).
  template <class... Items>
  TensorView i(const Items&... items) const;

  /// Same data, new shape (must be compatible with the strides). Python: `t.view(shape)`.
  TensorView view(IntList shape) const;
  /// Python: `t.permute(dims)`.
  TensorView permute(IntList dims) const;
  /// Python: `t.transpose(dim0, dim1)`.
  TensorView transpose(std::int64_t dim0, std::int64_t dim1) const;
  /// Without all dimensions of size 1. Python: `t.squeeze()`.
  TensorView squeeze() const;
  /// Python: `t.squeeze(dim)`.
  TensorView squeeze(std::int64_t dim) const;
  /// Python: `t.unsqueeze(dim)`.
  TensorView unsqueeze(std::int64_t dim) const;
  /// Python: `t.narrow(dim, start, length)`.
  TensorView narrow(std::int64_t dim, std::int64_t start, std::int64_t length) const;
  /// Python: `t.select(dim, index)`.
  TensorView select(std::int64_t dim, std::int64_t index) const;
  /// Python: `t.expand(sizes)` (-1 keeps a size).
  TensorView expand(IntList sizes) const;
  /// Python: `t.chunk(chunks, dim)`.
  std::vector<TensorView> chunk(std::int64_t chunks, std::int64_t dim = 0) const;
  /// Python: `t.split(size, dim)`: pieces of `size` along `dim`.
  std::vector<TensorView> split(std::int64_t size, std::int64_t dim = 0) const;
  /// Python: `t.split([sizes], dim)`.
  std::vector<TensorView> split(IntList sizes, std::int64_t dim) const;
  /// Python: `t.unbind(dim)`.
  std::vector<TensorView> unbind(std::int64_t dim = 0) const;

 private:
  ViewSource source() const {
    return TensorAccess::view_source(static_cast<const Derived&>(*this));
  }
};

}  // namespace fp::detail
