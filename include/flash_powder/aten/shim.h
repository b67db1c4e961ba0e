// fp::aten::shim: the ATen overloads with a non-optional Scalar argument,
// which the dispatcher route cannot carry (libtorch's stable ABI boxes no
// Scalar), through libtorch's backend C shims (`aoti_torch_cpu_<op>` on the
// CPU, `aoti_torch_cuda_<op>` on CUDA), which take the Scalar as a double.
//
// So each number is what Python's float is, and these have exactly ATen's
// semantics for a float argument: `shim::mul_Scalar(int_tensor, 2.0)` is
// `torch.ops.aten.mul.Scalar(int_tensor, 2.0)`, a float32 result. A number
// is an fp::aten::shim::Float, which takes floating-point values only, so
// `mul_Scalar(t, 2)` does not compile: an integer Scalar (whose result dtype
// differs) has no route here; fp::Tensor's methods and operators pass one as
// a 0-dim tensor instead.
//
// Tensors on another device (meta, ...), or on CUDA with a torch built
// without it, throw fp::Error (ErrorCode::Unsupported): these backend
// kernels have no other route.
#pragma once

#include <concepts>
#include <cstdint>

#include "flash_powder/core/tensor.h"
#include "flash_powder/core/tensor_arg.h"

namespace fp::aten::shim {

/// A Scalar argument as a Python float: from double or float only.
class Float {
 public:
  // Implicit on purpose: a floating-point literal passes where a Scalar goes.
  // NOLINTNEXTLINE(google-explicit-constructor)
  /// A Python float.
  constexpr Float(double value) noexcept : value_(value) {}
  /// An integer is refused at compile time: write 2.0 for a float Scalar.
  template <std::integral Integer>
  Float(Integer) = delete;

  /// The number.
  constexpr double value() const noexcept { return value_; }

 private:
  double value_;
};

/// `aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor`
Tensor add_Tensor(TensorArg self, TensorArg other, Float alpha = 1.0);
/// `aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor`
Tensor add_Scalar(TensorArg self, Float other, Float alpha = 1.0);
/// `aten::mul.Scalar(Tensor self, Scalar other) -> Tensor`
Tensor mul_Scalar(TensorArg self, Float other);
/// `aten::pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor`
Tensor pow_Tensor_Scalar(TensorArg self, Float exponent);
/// `aten::pow.Scalar(Scalar self, Tensor exponent) -> Tensor`
Tensor pow_Scalar(Float self, TensorArg exponent);
/// `aten::addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor`
Tensor addmv(TensorArg self, TensorArg mat, TensorArg vec, Float beta = 1.0, Float alpha = 1.0);
/// `aten::addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor`
Tensor addbmm(TensorArg self, TensorArg batch1, TensorArg batch2, Float beta = 1.0,
              Float alpha = 1.0);
/// `aten::_addmm_activation(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, bool use_gelu=False) -> Tensor`
Tensor _addmm_activation(TensorArg self, TensorArg mat1, TensorArg mat2, Float beta = 1.0,
                         Float alpha = 1.0, bool use_gelu = false);
/// `aten::histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor`
Tensor histc(TensorArg self, std::int64_t bins = 100, Float min = 0.0, Float max = 0.0);
/// `aten::fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)`
/// Writes to `self`.
void fill_Scalar_(MutableTensor self, Float value);
/// `aten::addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)`
/// Writes to `out`.
void addmm_out(TensorArg self, TensorArg mat1, TensorArg mat2, Float beta, Float alpha,
               MutableTensor out);
/// `aten::baddbmm.out(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)`
/// Writes to `out`.
void baddbmm_out(TensorArg self, TensorArg batch1, TensorArg batch2, Float beta, Float alpha,
                 MutableTensor out);
/// `aten::scatter.value_out(Tensor self, int dim, Tensor index, Scalar value, *, Tensor(a!) out) -> Tensor(a!)`
/// Writes to `out`.
void scatter_value_out(TensorArg self, std::int64_t dim, TensorArg index, Float value,
                       MutableTensor out);

}  // namespace fp::aten::shim
