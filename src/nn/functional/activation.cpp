#include "flash_powder/nn/functional/activation.h"

#include <string>

#include "../aten_op.h"
#include "../tensor_ops.h"

namespace fp::functional {
namespace {

using nn::detail::AtenOp;

/// The composites below would quietly promote integer tensors to float;
/// Python's kernels refuse them.
void require_floating_point(TensorView input, const char* function) {
  if (!is_floating_point(input.dtype())) {
    throw Error(std::string("fp::functional::") + function +
                ": expected a floating-point input, got " + std::string(name(input.dtype())));
  }
}

Tensor compare(const AtenOp& op, TensorView input, double value) {
  return op(input, nn::detail::scalar_tensor(value, DType::F64));
}

bool is_reduced_float(DType dtype) {
  return dtype == DType::F16 || dtype == DType::BF16;
}

}  // namespace

Tensor relu(TensorView input) {
  static const AtenOp op("aten::relu", "");
  return op(input);
}

Tensor relu6(TensorView input) {
  static const AtenOp op("aten::relu6", "");
  return op(input);
}

Tensor silu(TensorView input) {
  static const AtenOp op("aten::silu", "");
  return op(input);
}

Tensor sigmoid(TensorView input) {
  static const AtenOp op("aten::sigmoid", "");
  return op(input);
}

Tensor tanh(TensorView input) {
  static const AtenOp op("aten::tanh", "");
  return op(input);
}

Tensor hardswish(TensorView input) {
  static const AtenOp op("aten::hardswish", "");
  return op(input);
}

Tensor leaky_relu(TensorView input, const LeakyReluOptions& options) {
  require_floating_point(input, "leaky_relu");
  static const AtenOp greater("aten::gt", "Tensor");
  // libtorch's kernel: x > 0 ? x : x * slope, with the slope rounded to the
  // dtype's math type, which is what mul does with a 0-dim double tensor.
  const Tensor positive = compare(greater, input, 0.0);
  const Tensor slope = nn::detail::scalar_tensor(options.negative_slope, DType::F64);
  const Tensor scaled = nn::detail::mul(input, slope);
  return nn::detail::where(positive, input, scaled);
}

Tensor elu(TensorView input, const EluOptions& options) {
  require_floating_point(input, "elu");
  if (is_reduced_float(input.dtype())) {
    // libtorch computes float16/bfloat16 in float32 and rounds once at the end.
    const Tensor widened = nn::detail::to(input, DType::F32);
    const Tensor result = elu(widened, options);
    return nn::detail::to(result, input.dtype());
  }
  static const AtenOp greater_equal("aten::ge", "Tensor");
  static const AtenOp expm1("aten::expm1", "");
  // libtorch's vectorised kernel: x >= 0 ? x * scale : expm1(x * input_scale) * alpha * scale,
  // with scale = input_scale = 1 for F.elu.
  const Tensor non_negative = compare(greater_equal, input, 0.0);
  const Tensor alpha = nn::detail::scalar_tensor(options.alpha, DType::F64);
  const Tensor exponential = expm1(input);
  const Tensor negative = nn::detail::mul(exponential, alpha);
  return nn::detail::where(non_negative, input, negative);
}

Tensor gelu(TensorView input, const GeluOptions& options) {
  static const AtenOp op("aten::gelu", "");
  return op(input, options.approximate);
}

Tensor softmax(TensorView input, std::int64_t dim, const SoftmaxOptions& options) {
  static const AtenOp op("aten::softmax", "int");
  return op(input, dim, options.dtype);
}

Tensor log_softmax(TensorView input, std::int64_t dim, const SoftmaxOptions& options) {
  static const AtenOp op("aten::log_softmax", "int");
  return op(input, dim, options.dtype);
}

}  // namespace fp::functional
