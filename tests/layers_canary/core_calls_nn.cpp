// The link check's canary: a core source that calls an nn function through a
// hand-written declaration instead of including its header. The include
// check cannot see that; tools/check_layers.py --objects must refuse it.
#include "flash_powder/core/tensor.h"

namespace fp::functional {
Tensor relu(TensorArg input);
}  // namespace fp::functional

namespace fp::layers_canary {
Tensor calls_nn_from_core(const Tensor& tensor) {
  return functional::relu(tensor);
}
}  // namespace fp::layers_canary
