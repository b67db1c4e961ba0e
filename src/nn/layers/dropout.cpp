#include "flash_powder/nn/layers/dropout.h"

#include "flash_powder/functional/dropout.h"
#include "nn/messages.h"

namespace fp::nn {

Dropout::Dropout(double p) : p(p) {
  if (p < 0.0 || p > 1.0) {
    detail::fail("Dropout", "dropout probability has to be between 0 and 1, but got " +
                                detail::python_float(p));
  }
}

Tensor Dropout::forward(TensorView input) const {
  return functional::dropout(input, {.p = p, .training = false});
}

}  // namespace fp::nn
