// Free functions over several tensors, like torch.cat and torch.where.
#pragma once

#include <cstdint>

#include "flash_powder/core/arguments.h"
#include "flash_powder/core/scalar.h"

namespace fp {

/// Joins along an existing dimension. Python: `torch.cat(tensors, dim)`.
Tensor cat(const TensorList& tensors, std::int64_t dim = 0);
/// Joins along a new dimension. Python: `torch.stack(tensors, dim)`.
Tensor stack(const TensorList& tensors, std::int64_t dim = 0);
/// Python: `torch.hstack(tensors)`.
Tensor hstack(const TensorList& tensors);
/// Python: `torch.vstack(tensors)`.
Tensor vstack(const TensorList& tensors);

/// `x` where `condition` holds, else `y`; numbers promote like Python's.
/// Python: `torch.where(condition, x, y)`.
Tensor where(TensorArg condition, TensorArg x, TensorArg y);
Tensor where(TensorArg condition, TensorArg x, Scalar y);
Tensor where(TensorArg condition, Scalar x, TensorArg y);
Tensor where(TensorArg condition, Scalar x, Scalar y);

/// Python: `torch.clamp(t, min, max)`.
Tensor clamp(TensorArg t, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);

/// Python: `torch.matmul(a, b)` (also `a @ b`).
Tensor matmul(TensorArg a, TensorArg b);

}  // namespace fp
