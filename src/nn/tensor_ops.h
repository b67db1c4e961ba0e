// The tensor operations nn needs that core does not offer (yet), each one
// ATen call. Internal to the nn sources.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "flash_powder/core/array_ref.h"
#include "flash_powder/core/dtype.h"
#include "flash_powder/core/tensor.h"

namespace fp::nn::detail {

/// A tensor an internal helper reads: a Tensor (a temporary too), a
/// TensorView or a TensorMutView, so that the helpers nest. It hands libtorch
/// the raw handle: reading needs no borrow bookkeeping, and the results are
/// new Tensors.
class Read {
 public:
  Read(const fp::detail::TensorBase& tensor) noexcept : raw_(tensor.raw()) {}  // NOLINT: implicit
  abi::RawTensor raw() const noexcept { return raw_; }

 private:
  abi::RawTensor raw_;
};

/// The sizes as a vector (TensorBase::sizes() is a span into the tensor).
std::vector<std::int64_t> sizes_of(const fp::detail::TensorBase& tensor);
/// Python's `str(tensor.shape)`, e.g. "torch.Size([2, 3])", for messages.
std::string torch_size(const fp::detail::TensorBase& tensor);
std::string torch_size(IntList sizes);
/// "[2, 3]", for messages.
std::string list_text(IntList values);

/// A 0-dim tensor of `dtype` holding `value`.
Tensor scalar_tensor(double value, DType dtype);

Tensor reshape(Read tensor, IntList sizes);
Tensor transpose(Read tensor, std::int64_t dim0, std::int64_t dim1);
Tensor permute(Read tensor, IntList dims);
Tensor unsqueeze(Read tensor, std::int64_t dim);
Tensor squeeze(Read tensor, std::int64_t dim);
Tensor select(Read tensor, std::int64_t dim, std::int64_t index);
Tensor narrow(Read tensor, std::int64_t dim, std::int64_t start, std::int64_t length);
Tensor contiguous(Read tensor);
Tensor expand(Read tensor, IntList sizes);
Tensor cat(const std::vector<Read>& tensors, std::int64_t dim);
/// A copy converted to `dtype` and/or moved to `device`.
Tensor to(Read tensor, std::optional<DType> dtype, std::optional<Device> device = {});

Tensor mul(Read a, Read b);
Tensor div(Read a, Read b);
/// a + b with one rounding, like Python's `a + b` (aten::add takes a Scalar
/// alpha, which the stable ABI cannot carry; _foreach_addcmul computes
/// a + 1 * b * 1, which is exact).
Tensor add(Read a, Read b);
Tensor where(Read condition, Read a, Read b);
Tensor bmm(Read a, Read b);
Tensor masked_fill(Read tensor, Read mask, Read value);
Tensor mean(Read tensor, std::int64_t dim);

/// True when `a` and `b` are the same tensor: same storage, offset, sizes
/// and strides (Python's `a is b` for the purposes of MultiheadAttention).
bool same_tensor(Read a, Read b);

}  // namespace fp::nn::detail
