// Internal to src/ops: the arithmetic the stable ABI cannot express directly.
//
// libtorch's `add`/`sub` take a Scalar `alpha`, which cannot cross the stable
// ABI, so they are assembled here from ops that can, such that every result
// equals Python's `a + b` and `a - b` bit for bit.
#pragma once

#include "flash_powder/core/conversion.h"
#include "flash_powder/core/scalar.h"
#include "flash_powder/core/tensor.h"

namespace fp::ops {

/// Python's `a + b` (type promotion, broadcasting, integer wrap-around).
Tensor add(TensorArg a, TensorArg b);
/// Python's `a - b`.
Tensor sub(TensorArg a, TensorArg b);
/// Python's `base ** exponent` for a number exponent (its special cases).
Tensor pow(TensorArg base, Scalar exponent);
/// The 0-dim tensor a number stands in as next to `beside` (core/scalar.h).
Tensor number(const Scalar& value, TensorArg beside);
/// `self += sign * other` (sign 1 or -1) in place, with the bits of
/// `assign_in_place(self, add(self, other))`; false where it cannot (other
/// dtypes or devices, shapes or memory libtorch's in-place kernel refuses),
/// having written nothing.
bool add_in_place(MutableTensor self, TensorArg other, std::int64_t sign);
/// Writes `result` into `self` the way PyTorch's in-place ops do: only if
/// `result`'s dtype can be cast to `self`'s (`operation` names the op).
void assign_in_place(MutableTensor self, const Tensor& result, const char* operation);

}  // namespace fp::ops
