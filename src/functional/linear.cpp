#include "flash_powder/functional/linear.h"

#include "flash_powder/aten/aten.h"

namespace fp::functional {

Tensor linear(const TensorView& input, const TensorView& weight,
              const std::optional<TensorView>& bias) {
  return aten::linear(input, weight, bias);
}

Tensor bilinear(const TensorView& input1, const TensorView& input2, const TensorView& weight,
                const std::optional<TensorView>& bias) {
  return aten::bilinear(input1, input2, weight, bias);
}

}  // namespace fp::functional
