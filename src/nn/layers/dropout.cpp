#include "flash_powder/nn/layers/dropout.h"

#include "flash_powder/functional/dropout.h"
#include "nn/messages.h"

namespace fp::nn {

namespace detail {

DropoutBase::DropoutBase(double p, const char* layer) : p(p) {
  if (p < 0.0 || p > 1.0) {
    fail(layer, "dropout probability has to be between 0 and 1, but got " + python_float(p));
  }
}

}  // namespace detail

Tensor Dropout::forward(TensorView input) const {
  return functional::dropout(input, {.p = p, .training = false});
}

Tensor Dropout1d::forward(TensorView input) const {
  return functional::dropout1d(input, {.p = p, .training = false});
}

Tensor Dropout2d::forward(TensorView input) const {
  return functional::dropout2d(input, {.p = p, .training = false});
}

Tensor Dropout3d::forward(TensorView input) const {
  return functional::dropout3d(input, {.p = p, .training = false});
}

Tensor AlphaDropout::forward(TensorView input) const {
  return functional::alpha_dropout(input, {.p = p, .training = false});
}

Tensor FeatureAlphaDropout::forward(TensorView input) const {
  return functional::feature_alpha_dropout(input, {.p = p, .training = false});
}

}  // namespace fp::nn
