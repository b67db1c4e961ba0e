// layer_linear: F.linear as torch.nn's layers compute it (Linear and the
// projections of MultiheadAttention). Internal; defined in linear.cpp.
#pragma once

#include <optional>

#include "flash_powder/core/tensor.h"

namespace fp::nn::detail {

/// F.linear as torch.nn layers compute it. PyTorch's parameters require grad,
/// and then matmul folds an input of 3 or more dimensions into a matrix even
/// when that takes a copy (a non-contiguous input, e.g. batch_first attention);
/// F.linear on plain tensors would not, and rounds differently. So a
/// non-contiguous input is made contiguous first, which is what the fold does.
Tensor layer_linear(TensorView input, TensorView weight, const std::optional<TensorView>& bias);

}  // namespace fp::nn::detail
