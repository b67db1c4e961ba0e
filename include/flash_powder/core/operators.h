// Arithmetic and comparison operators on tensors, like Python's.
//
//     fp::Tensor p = m * fp::tensor(100.f) + 1.0;   // numbers promote like Python numbers
//     fp::Tensor mask = m > 0.5;                   // comparisons give bool tensors
//     m += 1;                                      // in place, on Tensor and TensorMutView
//
// Each binary operator takes two tensors (any of Tensor, TensorView,
// TensorMutView, temporaries included) or a tensor and a number, and returns
// a new Tensor. `==` and friends compare element-wise; use `a.is_equal(b)`
// for one bool.
#pragma once

#include "flash_powder/core/scalar.h"
#include "flash_powder/core/tensor.h"

namespace fp {

Tensor operator+(TensorArg a, TensorArg b);
Tensor operator+(TensorArg a, Scalar b);
Tensor operator+(Scalar a, TensorArg b);
Tensor operator-(TensorArg a, TensorArg b);
Tensor operator-(TensorArg a, Scalar b);
Tensor operator-(Scalar a, TensorArg b);
Tensor operator*(TensorArg a, TensorArg b);
Tensor operator*(TensorArg a, Scalar b);
Tensor operator*(Scalar a, TensorArg b);
/// True division, like Python's `/`.
Tensor operator/(TensorArg a, TensorArg b);
Tensor operator/(TensorArg a, Scalar b);
Tensor operator/(Scalar a, TensorArg b);
/// Python's `%` (sign of the divisor).
Tensor operator%(TensorArg a, TensorArg b);
Tensor operator%(TensorArg a, Scalar b);
Tensor operator%(Scalar a, TensorArg b);
Tensor operator-(TensorArg a);

Tensor operator==(TensorArg a, TensorArg b);
Tensor operator==(TensorArg a, Scalar b);
Tensor operator==(Scalar a, TensorArg b);
Tensor operator!=(TensorArg a, TensorArg b);
Tensor operator!=(TensorArg a, Scalar b);
Tensor operator!=(Scalar a, TensorArg b);
Tensor operator<(TensorArg a, TensorArg b);
Tensor operator<(TensorArg a, Scalar b);
Tensor operator<(Scalar a, TensorArg b);
Tensor operator<=(TensorArg a, TensorArg b);
Tensor operator<=(TensorArg a, Scalar b);
Tensor operator<=(Scalar a, TensorArg b);
Tensor operator>(TensorArg a, TensorArg b);
Tensor operator>(TensorArg a, Scalar b);
Tensor operator>(Scalar a, TensorArg b);
Tensor operator>=(TensorArg a, TensorArg b);
Tensor operator>=(TensorArg a, Scalar b);
Tensor operator>=(Scalar a, TensorArg b);

// Bitwise operators, for bool and integer tensors as in Python: `~mask`,
// `a & b`, `flags | 4`, `x << 2`. (libtorch refuses floating tensors.)
// Python: `__invert__`, `__and__`, `__or__`, `__xor__`, `__lshift__`, `__rshift__`.
Tensor operator~(TensorArg a);
Tensor operator&(TensorArg a, TensorArg b);
Tensor operator&(TensorArg a, Scalar b);
Tensor operator&(Scalar a, TensorArg b);
Tensor operator|(TensorArg a, TensorArg b);
Tensor operator|(TensorArg a, Scalar b);
Tensor operator|(Scalar a, TensorArg b);
Tensor operator^(TensorArg a, TensorArg b);
Tensor operator^(TensorArg a, Scalar b);
Tensor operator^(Scalar a, TensorArg b);
Tensor operator<<(TensorArg a, TensorArg b);
Tensor operator<<(TensorArg a, Scalar b);
Tensor operator<<(Scalar a, TensorArg b);
Tensor operator>>(TensorArg a, TensorArg b);
Tensor operator>>(TensorArg a, Scalar b);
Tensor operator>>(Scalar a, TensorArg b);

}  // namespace fp
