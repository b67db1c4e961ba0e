#include "flash_powder/nn/functional/linear.h"

#include "../aten_op.h"

namespace fp::functional {

Tensor linear(TensorView input, TensorView weight, std::optional<TensorView> bias) {
  static const nn::detail::AtenOp op("aten::linear", "");
  return op(input, weight, bias);
}

}  // namespace fp::functional
