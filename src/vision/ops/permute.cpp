#include "flash_powder/vision/ops/permute.h"

namespace fp::vision::ops {

Tensor Permute::forward(TensorView input) const {
  return input.permute(dims).to_owned();
}

}  // namespace fp::vision::ops
