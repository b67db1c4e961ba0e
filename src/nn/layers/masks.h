// What MultiheadAttention and the Transformer layers share: Python's
// `_canonical_mask`, `_detect_is_causal_mask` and the fast-path switch.
// Internal; defined in attention.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "flash_powder/base/dtype.h"
#include "flash_powder/core/tensor.h"

namespace fp::nn::detail {

/// Python's `F._canonical_mask`: a bool mask becomes 0 / -inf in `dtype`, a
/// floating one is kept; any other dtype is an fp::Error of `layer` naming
/// the mask.
std::optional<Tensor> canonical_mask(const std::optional<TensorView>& mask, const char* name,
                                     DType dtype, const char* layer);

/// Python's `_generate_square_subsequent_mask`: -inf above the diagonal, 0 elsewhere.
Tensor square_subsequent_mask(std::int64_t size, DType dtype, Device device);

/// Python's `_detect_is_causal_mask`: `is_causal` when given, else whether
/// `mask` equals the causal mask of `size` (or of its own size).
bool detect_is_causal_mask(const std::optional<TensorView>& mask, std::optional<bool> is_causal,
                           std::optional<std::int64_t> size);

/// Whether a tensor's device is one PyTorch's fast paths accept (CPU, CUDA).
bool fast_path_device(const TensorView& tensor);

}  // namespace fp::nn::detail
