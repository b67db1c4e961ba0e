#include "flash_powder/nn/layers/flatten.h"

namespace fp::nn {

Tensor Flatten::forward(TensorView input) const {
  return input.flatten(start_dim, end_dim);
}

}  // namespace fp::nn
