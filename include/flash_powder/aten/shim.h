// ATen ops with a Scalar argument that the dispatcher route cannot carry
// (libtorch's stable ABI boxes no Scalar), callable here on CPU tensors
// through libtorch's CPU kernels (`aoti_torch_cpu_<op>`), which take the
// Scalar as a double. Named like the generated fp::aten functions
// (ops/aten.h); each number is passed as a Python float would be, so
// `mul_Scalar(int_tensor, 2)` is `torch.ops.aten.mul.Scalar(int_tensor, 2.0)`,
// a float result.
//
// A tensor that is not a strided CPU tensor throws fp::Error: these ops have
// no route to other devices (docs/architecture.md, "Which route an op takes").
#pragma once

#include <cstdint>

#include "flash_powder/core/tensor.h"
#include "flash_powder/core/tensor_arg.h"

namespace fp::aten {

/// `aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor`
Tensor add_Tensor(TensorArg self, TensorArg other, double alpha = 1);
/// `aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor`
Tensor add_Scalar(TensorArg self, double other, double alpha = 1);
/// `aten::mul.Scalar(Tensor self, Scalar other) -> Tensor`
Tensor mul_Scalar(TensorArg self, double other);
/// `aten::pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor`
Tensor pow_Tensor_Scalar(TensorArg self, double exponent);
/// `aten::pow.Scalar(Scalar self, Tensor exponent) -> Tensor`
Tensor pow_Scalar(double self, TensorArg exponent);
/// `aten::addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor`
Tensor addmv(TensorArg self, TensorArg mat, TensorArg vec, double beta = 1, double alpha = 1);
/// `aten::addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor`
Tensor addbmm(TensorArg self, TensorArg batch1, TensorArg batch2, double beta = 1,
              double alpha = 1);
/// `aten::_addmm_activation(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, bool use_gelu=False) -> Tensor`
Tensor _addmm_activation(TensorArg self, TensorArg mat1, TensorArg mat2, double beta = 1,
                         double alpha = 1, bool use_gelu = false);
/// `aten::histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor`
Tensor histc(TensorArg self, std::int64_t bins = 100, double min = 0, double max = 0);
/// `aten::fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)`
/// Writes to `self`.
void fill_Scalar_(MutableTensor self, double value);
/// `aten::addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)`
/// Writes to `out`.
void addmm_out(TensorArg self, TensorArg mat1, TensorArg mat2, double beta, double alpha,
               MutableTensor out);
/// `aten::baddbmm.out(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)`
/// Writes to `out`.
void baddbmm_out(TensorArg self, TensorArg batch1, TensorArg batch2, double beta, double alpha,
                 MutableTensor out);
/// `aten::scatter.value_out(Tensor self, int dim, Tensor index, Scalar value, *, Tensor(a!) out) -> Tensor(a!)`
/// Writes to `out`.
void scatter_value_out(TensorArg self, std::int64_t dim, TensorArg index, double value,
                       MutableTensor out);

}  // namespace fp::aten
