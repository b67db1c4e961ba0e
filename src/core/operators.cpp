#include "flash_powder/core/operators.h"

#include "arithmetic.h"
#include "flash_powder/aten/aten.h"
#include "flash_powder/core/functions.h"

namespace fp {
namespace {

/// A number on the left: the 0-dim tensor it stands for next to `b`.
Tensor left(const Scalar& a, TensorArg b) {
  return ops::number(a, b);
}

}  // namespace

Tensor operator+(TensorArg a, TensorArg b) {
  return ops::add(a, b);
}
Tensor operator+(TensorArg a, Scalar b) {
  return ops::add(a, ops::number(b, a));
}
Tensor operator+(Scalar a, TensorArg b) {
  return ops::add(left(a, b), b);
}
Tensor operator-(TensorArg a, TensorArg b) {
  return ops::sub(a, b);
}
Tensor operator-(TensorArg a, Scalar b) {
  return ops::sub(a, ops::number(b, a));
}
Tensor operator-(Scalar a, TensorArg b) {
  return ops::sub(left(a, b), b);
}
Tensor operator*(TensorArg a, TensorArg b) {
  return aten::mul_Tensor(a, b);
}
Tensor operator*(TensorArg a, Scalar b) {
  return aten::mul_Tensor(a, ops::number(b, a));
}
Tensor operator*(Scalar a, TensorArg b) {
  return aten::mul_Tensor(left(a, b), b);
}
Tensor operator/(TensorArg a, TensorArg b) {
  return aten::div_Tensor(a, b);
}
Tensor operator/(TensorArg a, Scalar b) {
  return aten::div_Tensor(a, ops::number(b, a));
}
Tensor operator/(Scalar a, TensorArg b) {
  return aten::div_Tensor(left(a, b), b);
}
Tensor operator%(TensorArg a, TensorArg b) {
  return aten::remainder_Tensor(a, b);
}
Tensor operator%(TensorArg a, Scalar b) {
  return aten::remainder_Tensor(a, ops::number(b, a));
}
Tensor operator%(Scalar a, TensorArg b) {
  return aten::remainder_Tensor(left(a, b), b);
}
Tensor operator-(TensorArg a) {
  return aten::neg(a);
}

Tensor operator==(TensorArg a, TensorArg b) {
  return aten::eq_Tensor(a, b);
}
Tensor operator==(TensorArg a, Scalar b) {
  return aten::eq_Tensor(a, ops::number(b, a));
}
Tensor operator==(Scalar a, TensorArg b) {
  return aten::eq_Tensor(left(a, b), b);
}
Tensor operator!=(TensorArg a, TensorArg b) {
  return aten::ne_Tensor(a, b);
}
Tensor operator!=(TensorArg a, Scalar b) {
  return aten::ne_Tensor(a, ops::number(b, a));
}
Tensor operator!=(Scalar a, TensorArg b) {
  return aten::ne_Tensor(left(a, b), b);
}
Tensor operator<(TensorArg a, TensorArg b) {
  return aten::lt_Tensor(a, b);
}
Tensor operator<(TensorArg a, Scalar b) {
  return aten::lt_Tensor(a, ops::number(b, a));
}
Tensor operator<(Scalar a, TensorArg b) {
  return aten::lt_Tensor(left(a, b), b);
}
Tensor operator<=(TensorArg a, TensorArg b) {
  return aten::le_Tensor(a, b);
}
Tensor operator<=(TensorArg a, Scalar b) {
  return aten::le_Tensor(a, ops::number(b, a));
}
Tensor operator<=(Scalar a, TensorArg b) {
  return aten::le_Tensor(left(a, b), b);
}
Tensor operator>(TensorArg a, TensorArg b) {
  return aten::gt_Tensor(a, b);
}
Tensor operator>(TensorArg a, Scalar b) {
  return aten::gt_Tensor(a, ops::number(b, a));
}
Tensor operator>(Scalar a, TensorArg b) {
  return aten::gt_Tensor(left(a, b), b);
}
Tensor operator>=(TensorArg a, TensorArg b) {
  return aten::ge_Tensor(a, b);
}
Tensor operator>=(TensorArg a, Scalar b) {
  return aten::ge_Tensor(a, ops::number(b, a));
}
Tensor operator>=(Scalar a, TensorArg b) {
  return aten::ge_Tensor(left(a, b), b);
}

// --- functions.h -----------------------------------------------------------------

Tensor cat(const TensorList& tensors, std::int64_t dim) {
  return aten::cat(tensors, dim);
}
Tensor stack(const TensorList& tensors, std::int64_t dim) {
  return aten::stack(tensors, dim);
}
Tensor hstack(const TensorList& tensors) {
  return aten::hstack(tensors);
}
Tensor vstack(const TensorList& tensors) {
  return aten::vstack(tensors);
}

Tensor where(TensorArg condition, TensorArg x, TensorArg y) {
  return aten::where_self(condition, x, y);
}
Tensor where(TensorArg condition, TensorArg x, Scalar y) {
  return aten::where_self(condition, x, ops::number(y, x));
}
Tensor where(TensorArg condition, Scalar x, TensorArg y) {
  return aten::where_self(condition, ops::number(x, y), y);
}
Tensor where(TensorArg condition, Scalar x, Scalar y) {
  // Two numbers: like torch.where(c, 1, 2.5), each as torch.tensor would make it.
  return aten::where_self(condition, x.as_tensor(), y.as_tensor());
}

Tensor clamp(TensorArg t, std::optional<Scalar> min, std::optional<Scalar> max) {
  if (!min && !max)
    throw Error(ErrorCode::BadArgument, "clamp: At least one of 'min' or 'max' must not be None");
  const std::optional<Tensor> low = min ? std::optional(ops::number(*min, t)) : std::nullopt;
  const std::optional<Tensor> high = max ? std::optional(ops::number(*max, t)) : std::nullopt;
  return aten::clamp_Tensor(t, low ? std::optional<TensorArg>(*low) : std::nullopt,
                            high ? std::optional<TensorArg>(*high) : std::nullopt);
}

Tensor matmul(TensorArg a, TensorArg b) {
  return aten::matmul(a, b);
}

Tensor operator~(TensorArg a) {
  return aten::bitwise_not(a);
}

// A number on either side becomes a 0-dim tensor, as in the operators above;
// Python's reflected forms (`1 << t`: `__rlshift__`) compute number op tensor.
#define FP_BITWISE_OPERATOR(op, aten_function)        \
  Tensor operator op(TensorArg a, TensorArg b) {      \
    return aten::aten_function(a, b);                 \
  }                                                   \
  Tensor operator op(TensorArg a, Scalar b) {         \
    return aten::aten_function(a, ops::number(b, a)); \
  }                                                   \
  Tensor operator op(Scalar a, TensorArg b) {         \
    return aten::aten_function(left(a, b), b);        \
  }
FP_BITWISE_OPERATOR(&, dunder_and_Tensor)
FP_BITWISE_OPERATOR(|, dunder_or_Tensor)
FP_BITWISE_OPERATOR(^, dunder_xor_Tensor)
FP_BITWISE_OPERATOR(<<, dunder_lshift_Tensor)
FP_BITWISE_OPERATOR(>>, dunder_rshift_Tensor)
#undef FP_BITWISE_OPERATOR

}  // namespace fp
