// detail::TensorBase: what fp::Tensor, fp::TensorView and fp::TensorMutView
// (core/tensor.h) can all do without mutating anything. Their view-making and
// writing members are in the mixins of core/detail/view_ops.h and
// core/detail/mutable_access.h. Read core/tensor.h first; this header is
// included from there.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "flash_powder/abi/ivalue.h"
#include "flash_powder/abi/tensor_handle.h"
#include "flash_powder/core/array_ref.h"
#include "flash_powder/core/borrow.h"
#include "flash_powder/core/detail/tensor_access.h"
#include "flash_powder/core/detail/tensor_methods.h"
#include "flash_powder/core/element_type.h"
#include "flash_powder/core/index.h"
#include "flash_powder/core/options.h"
#include "flash_powder/core/scalar.h"
#include "flash_powder/core/tensor_arg.h"

namespace fp {

class Tensor;
class TensorView;
class TensorMutView;

namespace detail {

/// What all three tensor types can do without mutating anything: metadata,
/// read access to the data, and every read-only operation.
class TensorBase : public TensorMethods {
 public:
  /// The libtorch handle, for calling C shim functions directly (not owned).
  abi::RawTensor raw() const noexcept { return handle_.get(); }

  // --- properties (Python: the torch.Tensor attribute of the same name) ----

  /// False for a default-constructed or moved-from tensor.
  bool is_defined() const noexcept { return handle_ && abi::is_defined(handle_.get()); }
  /// The number of dimensions. Python: `t.dim()`.
  std::int64_t dim() const;
  /// Like `t.shape`. Valid while the tensor lives.
  std::span<const std::int64_t> sizes() const;
  /// The strides, in elements, like `t.stride()`. Valid while the tensor lives.
  std::span<const std::int64_t> strides() const;
  /// `t.size(d)`; negative `d` counts from the end. Throws on a bad dimension.
  std::int64_t size(std::int64_t d) const;
  /// `t.stride(d)`; negative `d` counts from the end.
  std::int64_t stride(std::int64_t d) const;
  /// The number of elements. Python: `t.numel()`.
  std::int64_t numel() const;
  /// The element type. Python: `t.dtype`.
  DType dtype() const;
  /// Where the data lives. Python: `t.device`.
  Device device() const;
  /// Strided, sparse, ... Python: `t.layout`.
  Layout layout() const;
  /// Whether the elements lie in row-major order without gaps. Python: `t.is_contiguous()`.
  bool is_contiguous() const;
  /// The offset of the first element in the storage, in elements. Python: `t.storage_offset()`.
  std::int64_t storage_offset() const;
  /// Bytes per element. Python: `t.element_size()`.
  std::size_t element_size() const { return fp::element_size(dtype()); }
  /// `t.nbytes`: numel() * element_size().
  std::size_t nbytes() const { return static_cast<std::size_t>(numel()) * element_size(); }

  // --- read access to the data (CPU, contiguous, matching dtype) ------------

  /// All elements in memory order, like `std::span<const T>`. Throws fp::Error
  /// unless the tensor is on the CPU, contiguous and of dtype `dtype_of<T>`.
  template <Element T>
  std::span<const T> data() const {
    return {static_cast<const T*>(checked_data(dtype_of<T>, "data")),
            static_cast<std::size_t>(numel())};
  }
  /// The element at `indices` (negative ones count from the end); bounds checked.
  template <Element T>
  T at(std::span<const std::int64_t> indices) const {
    return *static_cast<const T*>(checked_element(dtype_of<T>, indices, "at"));
  }
  /// The same with the indices as a braced list: `t.at<float>({0, 1})`.
  template <Element T>
  T at(std::initializer_list<std::int64_t> indices) const {
    return at<T>(std::span<const std::int64_t>(indices.begin(), indices.size()));
  }
  /// The only element converted to T, like `t.item()`; throws unless numel()==1.
  template <Element T>
  T item() const;
  /// A copy of the elements (any layout, CPU) converted to T, in row-major order.
  template <Element T>
  std::vector<T> to_vector() const;

  // --- conversions: each returns a new, independent Tensor -----------------
  // (PyTorch's `to`, `contiguous`, `reshape` and `flatten` sometimes return
  // the input itself or a view of it; here they never alias.)

  /// A new, independent Tensor with the same values (a lazy clone).
  Tensor to_owned() const;
  // The op methods (arithmetic, comparisons, reductions, conversions, ...)
  // are generated: core/detail/tensor_methods.h, from tools/generate_tensor_api.py.

  // --- advanced indexing (a copy, like PyTorch) -----------------------------------

  /// `t[...]` with index tensors among the items (see core/index.h):
  /// `t.index(rows)`, `t.index(fp::all, mask)`. Returns a new Tensor.
  template <class... Items>
  Tensor index(const Items&... items) const;

 protected:
  TensorBase() = default;
  /// Takes ownership of `handle`.
  explicit TensorBase(abi::TensorHandle handle) noexcept : handle_(std::move(handle)) {}
  /// Moves the handle.
  TensorBase(TensorBase&&) noexcept = default;
  /// Moves the handle.
  TensorBase& operator=(TensorBase&&) noexcept = default;
  ~TensorBase() = default;

  /// Throws fp::Error when this tensor is undefined.
  abi::RawTensor defined_raw(const char* operation) const;
  /// This tensor as a read-only op argument.
  TensorArg as_arg() const;
  /// The data for data<T>(): throws fp::Error naming `operation` unless the tensor is
  /// defined, on the CPU, contiguous and of dtype `wanted`.
  const void* checked_data(DType wanted, const char* operation) const;
  /// The element at `indices` for at<T>(), with the same checks and bounds checked.
  const void* checked_element(DType wanted, std::span<const std::int64_t> indices,
                              const char* operation) const;
  /// The data for data_mut<T>() (the caller has checked the borrow).
  void* checked_mutable_data(DType wanted, const char* operation) const;
  /// The element at `indices` for at_mut<T>() (the caller has checked the borrow).
  void* checked_mutable_element(DType wanted, std::span<const std::int64_t> indices,
                                const char* operation) const;
  /// The element of a 1-element tensor converted to `wanted`, into `out`.
  void item_into(DType wanted, void* out) const;
  /// Copies all elements converted to `wanted` into `out` (numel() of them).
  void copy_out(DType wanted, void* out) const;

  /// The owned libtorch handle (empty for an undefined tensor).
  abi::TensorHandle handle_;
};

}  // namespace detail

}  // namespace fp
