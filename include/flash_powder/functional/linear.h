// torch.nn.functional.linear.
// https://pytorch.org/docs/stable/nn.functional.html#linear-functions
#pragma once

#include <optional>

#include "flash_powder/core/tensor.h"

namespace fp::functional {

/// `input @ weight.T + bias`; a new Tensor. Throws fp::Error when the last
/// dimension of `input` differs from the second of `weight`.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.linear.html
Tensor linear(const TensorView& input, const TensorView& weight,
              const std::optional<TensorView>& bias = std::nullopt);

}  // namespace fp::functional
