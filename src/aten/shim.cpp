// fp::aten::shim (aten/shim.h): each op through its backend's C shim
// (abi/scalar_shims.h), the numbers as doubles.
#include "flash_powder/aten/shim.h"

#include <initializer_list>

#include "abi/scalar_shims.h"
#include "aten/call.h"

namespace fp::aten::shim {
namespace {

namespace op = ::fp::aten::detail;
using abi::checked_result;
using abi::RawTensor;
using abi::scalar_shims_for;
using abi::ScalarShims;

/// The new tensor `call(shims, &result)` makes with the shims of the
/// tensors' device.
template <class Call>
Tensor new_tensor(const char* what, std::initializer_list<RawTensor> tensors, Call&& call) {
  RawTensor result = nullptr;
  const ScalarShims& shims = scalar_shims_for(what, tensors);
  return Tensor(checked_result(call(shims, &result), result, what));
}

}  // namespace

Tensor add_Tensor(TensorArg self, TensorArg other, Float alpha) {
  return new_tensor("aten::add.Tensor", {self.raw(), other.raw()},
                    [&](const ScalarShims& shims, RawTensor* result) {
                      return shims.add_Tensor(self.raw(), other.raw(), alpha.value(), result);
                    });
}

Tensor add_Scalar(TensorArg self, Float other, Float alpha) {
  return new_tensor("aten::add.Scalar", {self.raw()},
                    [&](const ScalarShims& shims, RawTensor* result) {
                      return shims.add_Scalar(self.raw(), other.value(), alpha.value(), result);
                    });
}

Tensor mul_Scalar(TensorArg self, Float other) {
  return new_tensor("aten::mul.Scalar", {self.raw()},
                    [&](const ScalarShims& shims, RawTensor* result) {
                      return shims.mul_Scalar(self.raw(), other.value(), result);
                    });
}

Tensor pow_Tensor_Scalar(TensorArg self, Float exponent) {
  return new_tensor("aten::pow.Tensor_Scalar", {self.raw()},
                    [&](const ScalarShims& shims, RawTensor* result) {
                      return shims.pow_Tensor_Scalar(self.raw(), exponent.value(), result);
                    });
}

Tensor pow_Scalar(Float self, TensorArg exponent) {
  return new_tensor("aten::pow.Scalar", {exponent.raw()},
                    [&](const ScalarShims& shims, RawTensor* result) {
                      return shims.pow_Scalar(self.value(), exponent.raw(), result);
                    });
}

Tensor addmv(TensorArg self, TensorArg mat, TensorArg vec, Float beta, Float alpha) {
  return new_tensor("aten::addmv", {self.raw(), mat.raw(), vec.raw()},
                    [&](const ScalarShims& shims, RawTensor* result) {
                      return shims.addmv(self.raw(), mat.raw(), vec.raw(), beta.value(),
                                         alpha.value(), result);
                    });
}

Tensor addbmm(TensorArg self, TensorArg batch1, TensorArg batch2, Float beta, Float alpha) {
  return new_tensor("aten::addbmm", {self.raw(), batch1.raw(), batch2.raw()},
                    [&](const ScalarShims& shims, RawTensor* result) {
                      return shims.addbmm(self.raw(), batch1.raw(), batch2.raw(), beta.value(),
                                          alpha.value(), result);
                    });
}

Tensor _addmm_activation(TensorArg self, TensorArg mat1, TensorArg mat2, Float beta, Float alpha,
                         bool use_gelu) {
  return new_tensor("aten::_addmm_activation", {self.raw(), mat1.raw(), mat2.raw()},
                    [&](const ScalarShims& shims, RawTensor* result) {
                      return shims.addmm_activation(self.raw(), mat1.raw(), mat2.raw(),
                                                    beta.value(), alpha.value(), use_gelu ? 1 : 0,
                                                    result);
                    });
}

Tensor histc(TensorArg self, std::int64_t bins, Float min, Float max) {
  return new_tensor("aten::histc", {self.raw()}, [&](const ScalarShims& shims, RawTensor* result) {
    return shims.histc(self.raw(), bins, min.value(), max.value(), result);
  });
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
