// torch.nn.functional.linear and bilinear.
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

/// `x1^T A x2 + b` for each output feature: input1 [*, in1], input2 [*, in2]
/// (the same leading sizes), weight [out, in1, in2], bias [out] -> [*, out];
/// a new Tensor. Throws fp::Error with libtorch's message when shapes do not fit.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.bilinear.html
Tensor bilinear(const TensorView& input1, const TensorView& input2, const TensorView& weight,
                const std::optional<TensorView>& bias = std::nullopt);

}  // namespace fp::functional
