#include "flash_powder/nn/functional/linear.h"

#include "flash_powder/ops/aten.h"

namespace fp::functional {

Tensor linear(TensorView input, TensorView weight, std::optional<TensorView> bias) {
  return aten::linear(input, weight, bias);
}

}  // namespace fp::functional
