// The arithmetic the stable ABI cannot express with one op, for the
// generated methods and operators (tools/generate_tensor_api.py).
//
// libtorch's `add`/`sub` take a Scalar `alpha`, which cannot cross the stable
// ABI, so they are assembled here from ops that can, such that every result
// equals Python's `a + b` and `a - b` bit for bit.
#pragma once

#include <optional>

#include "flash_powder/core/conversion.h"
#include "flash_powder/core/scalar.h"
#include "flash_powder/core/tensor.h"

namespace fp::detail {

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
/// `self += other` and `self -= other`: in place where add_in_place can,
/// else the result of add/sub written back.
void add_assign(MutableTensor self, TensorArg other);
void sub_assign(MutableTensor self, TensorArg other);

/// Python's `t.clamp(min, max)` with number or tensor bounds (at least one).
Tensor clamp(TensorArg self, std::optional<Scalar> min, std::optional<Scalar> max);
Tensor clamp(TensorArg self, std::optional<TensorArg> min, std::optional<TensorArg> max);
/// Python's `t.clamp_(min, max)`.
void clamp_(MutableTensor self, std::optional<Scalar> min, std::optional<Scalar> max);
/// Python's `t.contiguous()` as an independent value: a lazy copy of a
/// contiguous tensor, a contiguous clone of another.
Tensor contiguous(TensorArg self);

}  // namespace fp::detail
