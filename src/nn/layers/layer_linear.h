// layer_linear: F.linear as torch.nn's layers compute it (Linear and the
// projections of MultiheadAttention). Internal; defined in linear.cpp.
#pragma once

#include <optional>

#include "flash_powder/core/tensor.h"

namespace fp::nn::detail {

/// F.linear as torch.nn layers compute it. PyTorch's parameters require grad
/// (their views too, even under no_grad), and then, for an input of 3 or more
/// dimensions that is not contiguous (e.g. batch_first attention), aten::linear
/// goes through matmul, which folds the input into a matrix (a contiguous
/// copy) for mm, and adds the bias afterwards; F.linear on plain tensors
/// would not fold, and addmm's fused bias rounds differently from a
/// separate add once the inner dimension is large (256 and up here). So a
/// non-contiguous input is made contiguous, multiplied, then the bias added.
Tensor layer_linear(TensorView input, TensorView weight, const std::optional<TensorView>& bias);

/// nn.Linear then nn.GELU() (approximate "none") as one `_addmm_activation`
/// call, where that gives the two layers' numbers bit for bit: on the CPU, in
/// float32 or float64, with a bias and a contiguous input of 2 or more
/// dimensions. There aten::linear is addmm over the input's rows, and the CPU
/// kernel of `_addmm_activation` is that addmm then gelu_ in place on its
/// result: the same arithmetic, without a second output and a second pass.
/// std::nullopt anywhere else (the caller runs the two layers).
std::optional<Tensor> linear_then_gelu(TensorView input, TensorView weight,
                                       const std::optional<TensorView>& bias);

}  // namespace fp::nn::detail
