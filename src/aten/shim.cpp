// fp::aten::shim (aten/shim.h): each op through its backend's C shim
// (abi/scalar_shims.h), the numbers as doubles.
#include "flash_powder/aten/shim.h"

#include "abi/scalar_shims.h"
#include "aten/call.h"

namespace fp::aten::shim {
namespace {

namespace op = ::fp::aten::detail;
using abi::checked_result;
using abi::RawTensor;
using abi::scalar_shims_for;

}  // namespace

Tensor add_Tensor(TensorArg self, TensorArg other, Float alpha) {
  constexpr const char* what = "aten::add.Tensor";
  RawTensor result = nullptr;
  const auto& shims = scalar_shims_for(what, {self.raw(), other.raw()});
  return Tensor(checked_result(shims.add_Tensor(self.raw(), other.raw(), alpha.value(), &result),
                               result, what));
}

Tensor add_Scalar(TensorArg self, Float other, Float alpha) {
  constexpr const char* what = "aten::add.Scalar";
  RawTensor result = nullptr;
  const auto& shims = scalar_shims_for(what, {self.raw()});
  return Tensor(checked_result(shims.add_Scalar(self.raw(), other.value(), alpha.value(), &result),
                               result, what));
}

Tensor mul_Scalar(TensorArg self, Float other) {
  constexpr const char* what = "aten::mul.Scalar";
  RawTensor result = nullptr;
  const auto& shims = scalar_shims_for(what, {self.raw()});
  return Tensor(checked_result(shims.mul_Scalar(self.raw(), other.value(), &result), result, what));
}

Tensor pow_Tensor_Scalar(TensorArg self, Float exponent) {
  constexpr const char* what = "aten::pow.Tensor_Scalar";
  RawTensor result = nullptr;
  const auto& shims = scalar_shims_for(what, {self.raw()});
  return Tensor(
      checked_result(shims.pow_Tensor_Scalar(self.raw(), exponent.value(), &result), result, what));
}

Tensor pow_Scalar(Float self, TensorArg exponent) {
  constexpr const char* what = "aten::pow.Scalar";
  RawTensor result = nullptr;
  const auto& shims = scalar_shims_for(what, {exponent.raw()});
  return Tensor(
      checked_result(shims.pow_Scalar(self.value(), exponent.raw(), &result), result, what));
}

Tensor addmv(TensorArg self, TensorArg mat, TensorArg vec, Float beta, Float alpha) {
  constexpr const char* what = "aten::addmv";
  RawTensor result = nullptr;
  const auto& shims = scalar_shims_for(what, {self.raw(), mat.raw(), vec.raw()});
  return Tensor(checked_result(
      shims.addmv(self.raw(), mat.raw(), vec.raw(), beta.value(), alpha.value(), &result), result,
      what));
}

Tensor addbmm(TensorArg self, TensorArg batch1, TensorArg batch2, Float beta, Float alpha) {
  constexpr const char* what = "aten::addbmm";
  RawTensor result = nullptr;
  const auto& shims = scalar_shims_for(what, {self.raw(), batch1.raw(), batch2.raw()});
  return Tensor(checked_result(
      shims.addbmm(self.raw(), batch1.raw(), batch2.raw(), beta.value(), alpha.value(), &result),
      result, what));
}

Tensor _addmm_activation(TensorArg self, TensorArg mat1, TensorArg mat2, Float beta, Float alpha,
                         bool use_gelu) {
  constexpr const char* what = "aten::_addmm_activation";
  RawTensor result = nullptr;
  const auto& shims = scalar_shims_for(what, {self.raw(), mat1.raw(), mat2.raw()});
  return Tensor(
      checked_result(shims.addmm_activation(self.raw(), mat1.raw(), mat2.raw(), beta.value(),
                                            alpha.value(), use_gelu ? 1 : 0, &result),
                     result, what));
}

Tensor histc(TensorArg self, std::int64_t bins, Float min, Float max) {
  constexpr const char* what = "aten::histc";
  RawTensor result = nullptr;
  const auto& shims = scalar_shims_for(what, {self.raw()});
  return Tensor(checked_result(shims.histc(self.raw(), bins, min.value(), max.value(), &result),
                               result, what));
}

void fill_Scalar_(MutableTensor self, Float value) {
  constexpr const char* what = "aten::fill_.Scalar";
  const auto& shims = scalar_shims_for(what, {self.raw()});
  op::check_mutation(self, what, {});
  abi::check(shims.fill_Scalar_(self.raw(), value.value()), what);
}

void addmm_out(TensorArg self, TensorArg mat1, TensorArg mat2, Float beta, Float alpha,
               MutableTensor out) {
  constexpr const char* what = "aten::addmm.out";
  const auto& shims = scalar_shims_for(what, {out.raw(), self.raw(), mat1.raw(), mat2.raw()});
  op::check_mutation(out, what, {self, mat1, mat2});
  abi::check(
      shims.addmm_out(out.raw(), self.raw(), mat1.raw(), mat2.raw(), beta.value(), alpha.value()),
      what);
}

void baddbmm_out(TensorArg self, TensorArg batch1, TensorArg batch2, Float beta, Float alpha,
                 MutableTensor out) {
  constexpr const char* what = "aten::baddbmm.out";
  const auto& shims = scalar_shims_for(what, {out.raw(), self.raw(), batch1.raw(), batch2.raw()});
  op::check_mutation(out, what, {self, batch1, batch2});
  abi::check(shims.baddbmm_out(out.raw(), self.raw(), batch1.raw(), batch2.raw(), beta.value(),
                               alpha.value()),
             what);
}

void scatter_value_out(TensorArg self, std::int64_t dim, TensorArg index, Float value,
                       MutableTensor out) {
  constexpr const char* what = "aten::scatter.value_out";
  const auto& shims = scalar_shims_for(what, {out.raw(), self.raw(), index.raw()});
  op::check_mutation(out, what, {self, index});
  abi::check(shims.scatter_value_out(out.raw(), self.raw(), dim, index.raw(), value.value()), what);
}

}  // namespace fp::aten::shim
