#include "flash_powder/nn/layers/flatten.h"

#include "flash_powder/aten/aten.h"

namespace fp::nn {

Tensor Flatten::forward(TensorView input) const {
  return input.flatten(start_dim, end_dim);
}

Tensor Unflatten::forward(TensorView input) const {
  return Tensor(aten::unflatten_int(input, dim, unflattened_size));
}

}  // namespace fp::nn
