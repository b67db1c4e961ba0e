// The activations with an ATen op of their own (no Python number to carry),
// and Python's own compositions of them. The ones whose kernel takes a
// Scalar are in activation_composite.cpp.
#include "flash_powder/functional/activation.h"

#include "flash_powder/aten/aten.h"
#include "flash_powder/core/operators.h"

namespace fp::functional {

Tensor relu(TensorArg input) {
  return aten::relu(input);
}

Tensor relu6(TensorArg input) {
  return aten::relu6(input);
}

Tensor silu(TensorArg input) {
  return aten::silu(input);
}

Tensor sigmoid(TensorArg input) {
  return aten::sigmoid(input);
}

Tensor tanh(TensorArg input) {
  return aten::tanh(input);
}

Tensor hardswish(TensorArg input) {
  return aten::hardswish(input);
}

Tensor hardsigmoid(TensorArg input) {
  return aten::hardsigmoid(input);
}

Tensor mish(TensorArg input) {
  return aten::mish(input);
}

Tensor selu(TensorArg input) {
  return aten::selu(input);
}

Tensor logsigmoid(TensorArg input) {
  return aten::log_sigmoid(input);
}

Tensor softsign(TensorArg input) {
  // Python: input / (input.abs() + 1).
  return input / (aten::abs(input) + 1);
}

Tensor tanhshrink(TensorArg input) {
  // Python: input - input.tanh().
  return input - aten::tanh(input);
}

Tensor prelu(const TensorView& input, const TensorView& weight) {
  return aten::prelu(input, weight);
}

Tensor glu(const TensorView& input, const GluOptions& options) {
  if (input.dim() == 0) {
    throw Error(ErrorCode::BadArgument,
                "fp::functional::glu: glu does not support scalars because halving size must be "
                "even");
  }
  return aten::glu(input, options.dim);
}

Tensor gelu(const TensorView& input, const GeluOptions& options) {
  return aten::gelu(input, options.approximate);
}

Tensor softmax(const TensorView& input, std::int64_t dim, const SoftmaxOptions& options) {
  return aten::softmax_int(input, dim, options.dtype);
}

Tensor log_softmax(const TensorView& input, std::int64_t dim, const SoftmaxOptions& options) {
  return aten::log_softmax_int(input, dim, options.dtype);
}

Tensor softmin(const TensorView& input, std::int64_t dim, const SoftmaxOptions& options) {
  // Python: (-input).softmax(dim, dtype=dtype).
  return aten::softmax_int(aten::neg(input), dim, options.dtype);
}

}  // namespace fp::functional
