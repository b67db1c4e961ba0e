// torch.nn.functional.dropout.
// https://pytorch.org/docs/stable/generated/torch.nn.functional.dropout.html
#pragma once

#include "flash_powder/core/tensor.h"

namespace fp::functional {

/// The keyword arguments of dropout, with PyTorch's defaults.
struct DropoutOptions {
  /// The probability of zeroing an element.
  double p = 0.5;
  /// Python's default: dropout is applied unless training is false.
  bool training = true;
};
/// In eval mode (`training = false`) a copy of the input. In training mode
/// each element is zeroed with probability p (drawn from libtorch's global
/// generator) and the rest scaled by 1/(1-p). Throws fp::Error unless
/// 0 <= p <= 1. Returns a new Tensor.
Tensor dropout(const TensorView& input, const DropoutOptions& options = {});

}  // namespace fp::functional
