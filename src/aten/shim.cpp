// The ops callable through libtorch's CPU kernels only (ops/cpu_only.h).
#include "flash_powder/aten/shim.h"

#include <initializer_list>
#include <string>

#include "aten/call.h"
#include "flash_powder/abi/direct.h"
#include "flash_powder/core/arguments.h"

namespace fp::aten {
namespace {

namespace op = detail;

/// Throws unless every tensor is one the CPU kernels take.
void require_cpu(const char* what, std::initializer_list<abi::RawTensor> tensors) {
  if (abi::all_plain_cpu(tensors)) return;
  std::string found;
  for (abi::RawTensor tensor : tensors) {
    if (abi::all_plain_cpu({tensor})) continue;
    found = tensor == nullptr || !abi::is_defined(tensor)
                ? std::string("an undefined tensor")
                : "a tensor on " + abi::device(tensor).str() + " with layout " +
                      std::string(fp::name(abi::layout(tensor)));
    break;
  }
  throw Error(ErrorCode::Unsupported,
              std::string(what) +
                  ": flash_powder calls it on strided CPU tensors only (its Scalar argument "
                  "crosses libtorch's stable ABI only to the CPU kernel); got " +
                  found);
}

}  // namespace

Tensor add_Tensor(TensorArg self, TensorArg other, double alpha) {
  constexpr const char* what = "aten::add.Tensor";
  require_cpu(what, {self.raw(), other.raw()});
  return Tensor(abi::cpu::add_Tensor(self.raw(), other.raw(), alpha, what));
}

Tensor add_Scalar(TensorArg self, double other, double alpha) {
  constexpr const char* what = "aten::add.Scalar";
  require_cpu(what, {self.raw()});
  return Tensor(abi::cpu::add_Scalar(self.raw(), other, alpha, what));
}

Tensor mul_Scalar(TensorArg self, double other) {
  constexpr const char* what = "aten::mul.Scalar";
  require_cpu(what, {self.raw()});
  return Tensor(abi::cpu::mul_Scalar(self.raw(), other, what));
}

Tensor pow_Tensor_Scalar(TensorArg self, double exponent) {
  constexpr const char* what = "aten::pow.Tensor_Scalar";
  require_cpu(what, {self.raw()});
  return Tensor(abi::cpu::pow_Tensor_Scalar(self.raw(), exponent, what));
}

Tensor pow_Scalar(double self, TensorArg exponent) {
  constexpr const char* what = "aten::pow.Scalar";
  require_cpu(what, {exponent.raw()});
  return Tensor(abi::cpu::pow_Scalar(self, exponent.raw(), what));
}

Tensor addmv(TensorArg self, TensorArg mat, TensorArg vec, double beta, double alpha) {
  constexpr const char* what = "aten::addmv";
  require_cpu(what, {self.raw(), mat.raw(), vec.raw()});
  return Tensor(abi::cpu::addmv(self.raw(), mat.raw(), vec.raw(), beta, alpha, what));
}

Tensor addbmm(TensorArg self, TensorArg batch1, TensorArg batch2, double beta, double alpha) {
  constexpr const char* what = "aten::addbmm";
  require_cpu(what, {self.raw(), batch1.raw(), batch2.raw()});
  return Tensor(abi::cpu::addbmm(self.raw(), batch1.raw(), batch2.raw(), beta, alpha, what));
}

Tensor _addmm_activation(TensorArg self, TensorArg mat1, TensorArg mat2, double beta, double alpha,
                         bool use_gelu) {
  constexpr const char* what = "aten::_addmm_activation";
  require_cpu(what, {self.raw(), mat1.raw(), mat2.raw()});
  return Tensor(
      abi::cpu::addmm_activation(self.raw(), mat1.raw(), mat2.raw(), beta, alpha, use_gelu, what));
}

Tensor histc(TensorArg self, std::int64_t bins, double min, double max) {
  constexpr const char* what = "aten::histc";
  require_cpu(what, {self.raw()});
  return Tensor(abi::cpu::histc(self.raw(), bins, min, max, what));
}

void fill_Scalar_(MutableTensor self, double value) {
  constexpr const char* what = "aten::fill_.Scalar";
  require_cpu(what, {self.raw()});
  op::check_mutation(self, what, {});
  abi::cpu::fill_(self.raw(), value, what);
}

void addmm_out(TensorArg self, TensorArg mat1, TensorArg mat2, double beta, double alpha,
               MutableTensor out) {
  constexpr const char* what = "aten::addmm.out";
  require_cpu(what, {out.raw(), self.raw(), mat1.raw(), mat2.raw()});
  op::check_mutation(out, what, {self, mat1, mat2});
  abi::cpu::addmm_out(out.raw(), self.raw(), mat1.raw(), mat2.raw(), beta, alpha, what);
}

void baddbmm_out(TensorArg self, TensorArg batch1, TensorArg batch2, double beta, double alpha,
                 MutableTensor out) {
  constexpr const char* what = "aten::baddbmm.out";
  require_cpu(what, {out.raw(), self.raw(), batch1.raw(), batch2.raw()});
  op::check_mutation(out, what, {self, batch1, batch2});
  abi::cpu::baddbmm_out(out.raw(), self.raw(), batch1.raw(), batch2.raw(), beta, alpha, what);
}

void scatter_value_out(TensorArg self, std::int64_t dim, TensorArg index, double value,
                       MutableTensor out) {
  constexpr const char* what = "aten::scatter.value_out";
  require_cpu(what, {out.raw(), self.raw(), index.raw()});
  op::check_mutation(out, what, {self, index});
  abi::cpu::scatter_value_out(out.raw(), self.raw(), dim, index.raw(), value, what);
}

}  // namespace fp::aten
