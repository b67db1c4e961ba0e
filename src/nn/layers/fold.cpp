#include "flash_powder/nn/layers/fold.h"

namespace fp::nn {

Tensor Fold::forward(TensorView input) const {
  return functional::fold(input, output_size, kernel_size, options);
}

Tensor Unfold::forward(TensorView input) const {
  return functional::unfold(input, kernel_size, options);
}

}  // namespace fp::nn
