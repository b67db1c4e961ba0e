#include "flash_powder/nn/layers/activation.h"

#include <string>

#include "flash_powder/aten/aten.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/functional/activation.h"
#include "nn/messages.h"
#include "parameters.h"

namespace fp::nn {
namespace {

/// PyTorch's `_get_softmax_dim` for modules made without a dim.
std::int64_t softmax_dim(std::optional<std::int64_t> dim, TensorView input) {
  if (dim) return *dim;
  const std::int64_t rank = input.dim();
  return (rank == 0 || rank == 1 || rank == 3) ? 0 : 1;
}

}  // namespace

Tensor ReLU::forward(TensorView input) const {
  return functional::relu(input);
}
bool ReLU::forward_in_place(Tensor& x) const {
  // Other dtypes keep forward(), and so its errors (bool) word for word.
  if (!x.is_defined() || !is_floating_point(x.dtype())) return false;
  aten::relu_(x);
  return true;
}
Tensor ReLU6::forward(TensorView input) const {
  return functional::relu6(input);
}
Tensor LeakyReLU::forward(TensorView input) const {
  return functional::leaky_relu(input, {.negative_slope = negative_slope});
}
Tensor ELU::forward(TensorView input) const {
  return functional::elu(input, {.alpha = alpha});
}
Tensor GELU::forward(TensorView input) const {
  return functional::gelu(input, {.approximate = approximate});
}
Tensor SiLU::forward(TensorView input) const {
  return functional::silu(input);
}
Tensor Sigmoid::forward(TensorView input) const {
  return functional::sigmoid(input);
}
Tensor Tanh::forward(TensorView input) const {
  return functional::tanh(input);
}
Tensor Hardswish::forward(TensorView input) const {
  return functional::hardswish(input);
}
Tensor Softmax::forward(TensorView input) const {
  return functional::softmax(input, softmax_dim(dim, input));
}
Tensor LogSoftmax::forward(TensorView input) const {
  return functional::log_softmax(input, softmax_dim(dim, input));
}
Tensor Hardsigmoid::forward(TensorView input) const {
  return functional::hardsigmoid(input);
}
Tensor Mish::forward(TensorView input) const {
  return functional::mish(input);
}
Tensor SELU::forward(TensorView input) const {
  return functional::selu(input);
}
Tensor CELU::forward(TensorView input) const {
  return functional::celu(input, {.alpha = alpha});
}
Tensor LogSigmoid::forward(TensorView input) const {
  return functional::logsigmoid(input);
}
Tensor Softsign::forward(TensorView input) const {
  return functional::softsign(input);
}
Tensor Tanhshrink::forward(TensorView input) const {
  return functional::tanhshrink(input);
}
Tensor Softplus::forward(TensorView input) const {
  return functional::softplus(input, {.beta = beta, .threshold = threshold});
}
Tensor Softshrink::forward(TensorView input) const {
  return functional::softshrink(input, {.lambd = lambd});
}
Tensor Hardshrink::forward(TensorView input) const {
  return functional::hardshrink(input, {.lambd = lambd});
}

Hardtanh::Hardtanh(double min_val, double max_val) : min_val(min_val), max_val(max_val) {
  if (!(max_val > min_val)) {
    detail::fail("Hardtanh", "max_val (" + detail::python_float(max_val) +
                                 ") must be greater than min_val (" +
                                 detail::python_float(min_val) + ")");
  }
}
Tensor Hardtanh::forward(TensorView input) const {
  return functional::hardtanh(input, {.min_val = min_val, .max_val = max_val});
}
Tensor Threshold::forward(TensorView input) const {
  return functional::threshold(input, threshold, value);
}
Tensor RReLU::forward(TensorView input) const {
  return functional::rrelu(input, {.lower = lower, .upper = upper});
}
Tensor GLU::forward(TensorView input) const {
  return functional::glu(input, {.dim = dim});
}
Tensor Softmin::forward(TensorView input) const {
  return functional::softmin(input, softmax_dim(dim, input));
}
Tensor Softmax2d::forward(TensorView input) const {
  if (input.dim() != 3 && input.dim() != 4) {
    detail::fail("Softmax2d",
                 "expected input to be 3D or 4D, got " + std::to_string(input.dim()) + "D instead");
  }
  return functional::softmax(input, -3);
}

PReLU::PReLU(std::int64_t num_parameters, double init, const PReLUOptions& options)
    : num_parameters(num_parameters), init(init) {
  if (num_parameters < 0) {
    detail::fail("PReLU",
                 "num_parameters must not be negative, got " + std::to_string(num_parameters));
  }
  weight = full({num_parameters}, init, detail::layer_options(options.dtype, options.device));
}
void PReLU::visit(Visitor& visitor) {
  visitor.parameter("weight", weight);
}
Tensor PReLU::forward(TensorView input) const {
  return functional::prelu(input, weight);
}

}  // namespace fp::nn
