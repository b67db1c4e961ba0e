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
class TensorBase {
 public:
  /// The libtorch handle, for calling C shim functions directly (not owned).
  abi::RawTensor raw() const noexcept { return handle_.get(); }

  // --- properties (Python: the torch.Tensor attribute of the same name) ----

  /// False for a default-constructed or moved-from tensor.
  bool is_defined() const noexcept { return handle_ && abi::is_defined(handle_.get()); }
  std::int64_t dim() const;
  /// Like `t.shape`. Valid while the tensor lives.
  std::span<const std::int64_t> sizes() const;
  std::span<const std::int64_t> strides() const;
  /// `t.size(d)`; negative `d` counts from the end. Throws on a bad dimension.
  std::int64_t size(std::int64_t d) const;
  /// `t.stride(d)`; negative `d` counts from the end.
  std::int64_t stride(std::int64_t d) const;
  std::int64_t numel() const;
  DType dtype() const;
  Device device() const;
  Layout layout() const;
  bool is_contiguous() const;
  std::int64_t storage_offset() const;
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
  /// Converted and/or moved, always a copy. Python: `t.to(...)`. Options
  /// convert from a DType or a Device alone: `t.to(fp::DType::U8)`.
  Tensor to(TensorOptions options, bool non_blocking = false) const;
  /// Python: `t.clone()`.
  Tensor clone() const;
  /// Python: `t.cpu()` (a copy even when already on the CPU).
  Tensor cpu() const;
  /// Python: `t.cuda(index)`.
  Tensor cuda(std::int8_t index = 0) const;
  /// A contiguous tensor with the same values: a lazy copy (copy-on-write,
  /// nothing copied yet) when this one is contiguous already, else a
  /// contiguous clone. Python: `t.contiguous()`.
  Tensor contiguous() const;
  /// Python: `t.reshape(shape)`; one size may be -1.
  Tensor reshape(IntList shape) const;
  /// Python: `t.flatten(start_dim, end_dim)`.
  Tensor flatten(std::int64_t start_dim = 0, std::int64_t end_dim = -1) const;

  // --- arithmetic (new Tensors; numbers promote like Python numbers) --------
  // https://pytorch.org/docs/stable/torch.html#pointwise-ops

  Tensor add(TensorArg other) const;
  Tensor add(Scalar other) const;
  Tensor sub(TensorArg other) const;
  Tensor sub(Scalar other) const;
  Tensor mul(TensorArg other) const;
  Tensor mul(Scalar other) const;
  /// True division; `rounding_mode` "trunc" or "floor" like Python's.
  Tensor div(TensorArg other, std::optional<std::string_view> rounding_mode = std::nullopt) const;
  Tensor div(Scalar other, std::optional<std::string_view> rounding_mode = std::nullopt) const;
  /// Python's `%`: the result has the sign of the divisor.
  Tensor remainder(TensorArg other) const;
  Tensor remainder(Scalar other) const;
  /// C's fmod: the result has the sign of the dividend.
  Tensor fmod(TensorArg other) const;
  Tensor fmod(Scalar other) const;
  Tensor pow(TensorArg exponent) const;
  Tensor pow(Scalar exponent) const;
  Tensor neg() const;
  Tensor abs() const;
  Tensor sqrt() const;
  Tensor rsqrt() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor sin() const;
  Tensor cos() const;
  Tensor tanh() const;
  Tensor sigmoid() const;
  Tensor floor() const;
  Tensor ceil() const;
  /// Half to even, like Python's `t.round(decimals=...)`.
  Tensor round(std::int64_t decimals = 0) const;

  // --- comparisons: bool tensors ---------------------------------------------

  Tensor eq(TensorArg other) const;
  Tensor eq(Scalar other) const;
  Tensor ne(TensorArg other) const;
  Tensor ne(Scalar other) const;
  Tensor lt(TensorArg other) const;
  Tensor lt(Scalar other) const;
  Tensor le(TensorArg other) const;
  Tensor le(Scalar other) const;
  Tensor gt(TensorArg other) const;
  Tensor gt(Scalar other) const;
  Tensor ge(TensorArg other) const;
  Tensor ge(Scalar other) const;
  /// Same sizes and values. Python: `torch.equal(t, other)`.
  bool is_equal(TensorArg other) const;
  /// Python: `torch.allclose(t, other, rtol, atol, equal_nan)`.
  bool allclose(TensorArg other, double rtol = 1e-05, double atol = 1e-08,
                bool equal_nan = false) const;

  // --- reductions ---------------------------------------------------------------
  // https://pytorch.org/docs/stable/torch.html#reduction-ops

  Tensor sum(std::optional<DType> dtype = std::nullopt) const;
  Tensor sum(IntList dims, bool keepdim = false, std::optional<DType> dtype = std::nullopt) const;
  Tensor mean(std::optional<DType> dtype = std::nullopt) const;
  Tensor mean(IntList dims, bool keepdim = false, std::optional<DType> dtype = std::nullopt) const;
  Tensor prod(std::optional<DType> dtype = std::nullopt) const;
  Tensor prod(std::int64_t dim, bool keepdim = false,
              std::optional<DType> dtype = std::nullopt) const;
  /// The smallest element. Python: `t.min()`.
  Tensor min() const;
  /// Values and indices along `dim`. Python: `t.min(dim, keepdim)`.
  std::tuple<Tensor, Tensor> min(std::int64_t dim, bool keepdim = false) const;
  Tensor max() const;
  std::tuple<Tensor, Tensor> max(std::int64_t dim, bool keepdim = false) const;
  Tensor amin(IntList dims = {}, bool keepdim = false) const;
  Tensor amax(IntList dims = {}, bool keepdim = false) const;
  Tensor argmin(std::optional<std::int64_t> dim = std::nullopt, bool keepdim = false) const;
  Tensor argmax(std::optional<std::int64_t> dim = std::nullopt, bool keepdim = false) const;
  /// Standard deviation; `unbiased` divides by N-1. Python: `t.std(dims, unbiased, keepdim)`.
  Tensor std(const std::optional<std::vector<std::int64_t>>& dims = std::nullopt,
             bool unbiased = true, bool keepdim = false) const;
  Tensor var(const std::optional<std::vector<std::int64_t>>& dims = std::nullopt,
             bool unbiased = true, bool keepdim = false) const;
  /// Python: `t.topk(k, dim, largest, sorted)` -> (values, indices).
  std::tuple<Tensor, Tensor> topk(std::int64_t k, std::int64_t dim = -1, bool largest = true,
                                  bool sorted = true) const;
  /// Python: `t.sort(dim, descending)` -> (values, indices).
  std::tuple<Tensor, Tensor> sort(std::int64_t dim = -1, bool descending = false) const;
  Tensor cumsum(std::int64_t dim, std::optional<DType> dtype = std::nullopt) const;

  // --- selection and linear algebra ---------------------------------------------

  /// This tensor where `condition` holds, else `other`. Python: `t.where(condition, other)`.
  Tensor where(TensorArg condition, TensorArg other) const;
  Tensor where(TensorArg condition, Scalar other) const;
  Tensor masked_fill(TensorArg mask, TensorArg value) const;
  Tensor masked_fill(TensorArg mask, Scalar value) const;
  /// Python: `t.clamp(min, max)`; either bound may be omitted (std::nullopt).
  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor clamp(std::optional<TensorArg> min, std::optional<TensorArg> max) const;
  Tensor matmul(TensorArg other) const;
  Tensor mm(TensorArg other) const;
  Tensor bmm(TensorArg other) const;

  // --- advanced indexing (a copy, like PyTorch) -----------------------------------

  /// `t[...]` with index tensors among the items (see core/index.h):
  /// `t.index(rows)`, `t.index(fp::all, mask)`. Returns a new Tensor.
  template <class... Items>
  Tensor index(const Items&... items) const;

 protected:
  TensorBase() = default;
  explicit TensorBase(abi::TensorHandle handle) noexcept : handle_(std::move(handle)) {}
  TensorBase(TensorBase&&) noexcept = default;
  TensorBase& operator=(TensorBase&&) noexcept = default;
  ~TensorBase() = default;

  /// Throws fp::Error when this tensor is undefined.
  abi::RawTensor defined_raw(const char* operation) const;
  /// This tensor as a read-only op argument.
  TensorArg as_arg() const;
  const void* checked_data(DType wanted, const char* operation) const;
  const void* checked_element(DType wanted, std::span<const std::int64_t> indices,
                              const char* operation) const;
  void* checked_mutable_data(DType wanted, const char* operation) const;
  void* checked_mutable_element(DType wanted, std::span<const std::int64_t> indices,
                                const char* operation) const;
  /// The element of a 1-element tensor converted to `wanted`, into `out`.
  void item_into(DType wanted, void* out) const;
  /// Copies all elements converted to `wanted` into `out` (numel() of them).
  void copy_out(DType wanted, void* out) const;

  abi::TensorHandle handle_;
};

}  // namespace detail

}  // namespace fp
