#include "flash_powder/functional/linear.h"

#include "flash_powder/aten/aten.h"

namespace fp::functional {

Tensor linear(const TensorView& input, const TensorView& weight,
              const std::optional<TensorView>& bias) {
  return aten::linear(input, weight, bias);
}

}  // namespace fp::functional
