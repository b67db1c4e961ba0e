// torch.nn.Dropout, which in eval mode passes its input through.
#pragma once

#include "flash_powder/nn/module.h"

namespace fp::nn {

/// In eval mode, which is what flash_powder runs, the identity (a copy of the
/// input). Throws fp::Error unless 0 <= p <= 1, like Python.
/// https://pytorch.org/docs/stable/generated/torch.nn.Dropout.html
class Dropout : public Module {
 public:
  /// The identity in inference; `p` in [0, 1] is checked like Python's.
  explicit Dropout(double p = 0.5);
  Tensor forward(TensorView input) const override;
  /// The probability of zeroing an element in training.
  double p;
};

}  // namespace fp::nn
