// The link check's canary: a core source that calls an op through a
// hand-written declaration instead of including ops/aten.h. The include check
// cannot see that; tools/check_layers.py --objects must refuse it.
#include "flash_powder/core/tensor.h"

namespace fp::aten {
Tensor relu(TensorArg self);
}  // namespace fp::aten

namespace fp::layers_canary {
Tensor calls_an_op_from_core(const Tensor& tensor) {
  return aten::relu(tensor);
}
}  // namespace fp::layers_canary
