#include "flash_powder/nn/layers/activation.h"

#include "flash_powder/aten/aten.h"
#include "flash_powder/functional/activation.h"

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

}  // namespace fp::nn
