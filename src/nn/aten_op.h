// AtenOp: an ATen op whose schema is looked up once, for the hot paths of nn.
#pragma once

#include <array>
#include <string_view>
#include <utility>

#include "flash_powder/abi/dispatch.h"
#include "flash_powder/abi/schema.h"
#include "flash_powder/core/tensor.h"

namespace fp::nn::detail {

/// Keep one in a function-local static:
///
///     static const AtenOp relu_op("aten::relu", "");
///     return relu_op(input);
///
/// Calls are checked against the schema exactly as fp::dispatch checks them.
class AtenOp {
 public:
  AtenOp(std::string_view op, std::string_view overload)
      : schema_(&abi::find_schema(op, overload)) {}

  /// Calls the op and converts its result to R (as fp::dispatch<R>).
  template <class R, class... Args>
  R call(Args&&... args) const {
    const std::array<abi::Arg, sizeof...(Args)> captured{abi::to_arg(std::forward<Args>(args))...};
    return abi::ReturnTraits<R>::take(abi::call(*schema_, captured));
  }

  /// The common case: an op returning one Tensor.
  template <class... Args>
  Tensor operator()(Args&&... args) const {
    return call<Tensor>(std::forward<Args>(args)...);
  }

 private:
  const abi::Schema* schema_;
};

}  // namespace fp::nn::detail
