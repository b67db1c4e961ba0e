#include "flash_powder/functional/activation.h"

#include <string>

#include "flash_powder/aten/aten.h"
#include "flash_powder/core/conversion.h"
#include "flash_powder/core/functions.h"
#include "flash_powder/core/operators.h"
#include "python_number.h"

namespace fp::functional {

using detail::python_number;

namespace {

/// The composites below would quietly promote integer tensors to float;
/// Python's kernels refuse them.
void require_floating_point(const TensorView& input, const char* function) {
  if (!is_floating_point(input.dtype())) {
    throw Error(ErrorCode::BadArgument, std::string("fp::functional::") + function +
                                            ": expected a floating-point input, got " +
                                            std::string(name(input.dtype())));
  }
}

bool is_reduced_float(DType dtype) {
  return dtype == DType::F16 || dtype == DType::BF16;
}

}  // namespace

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

Tensor leaky_relu(const TensorView& input, const LeakyReluOptions& options) {
  require_floating_point(input, "leaky_relu");
  // libtorch's kernel: x > 0 ? x : x * slope, with the slope rounded to the
  // dtype's math type, which is what mul does with a 0-dim double tensor.
  const Tensor positive = input.gt(python_number(0.0));
  const Tensor scaled = input * python_number(options.negative_slope);
  return where(positive, input, scaled);
}

Tensor elu(const TensorView& input, const EluOptions& options) {
  require_floating_point(input, "elu");
  if (is_reduced_float(input.dtype())) {
    // libtorch computes float16/bfloat16 in float32 and rounds once at the end.
    const Tensor result = elu(input.to(DType::F32), options);
    return result.to(input.dtype());
  }
  // libtorch's vectorised kernel: x >= 0 ? x * scale : expm1(x * input_scale) * alpha * scale,
  // with scale = input_scale = 1 for F.elu.
  const Tensor non_negative = input.ge(python_number(0.0));
  const Tensor negative = aten::expm1(input) * python_number(options.alpha);
  return where(non_negative, input, negative);
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

}  // namespace fp::functional
