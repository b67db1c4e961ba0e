// The in-place activations: libtorch's in-place op where it has a Scalar-free
// one, else the out-of-place composite copied into the input, which writes
// the same bits.
#include "flash_powder/functional/activation_inplace.h"

#include "flash_powder/abi/tensor_handle.h"
#include "flash_powder/aten/aten.h"
#include "flash_powder/core/detail/tensor_access.h"
#include "flash_powder/core/tensor.h"

namespace fp::functional {

namespace {

/// `target` read as a view before it is written. The borrow checker does not
/// track this view: it only feeds the computation whose result is written.
TensorView current(const MutableTensor& target) {
  return fp::detail::TensorAccess::view(abi::share(target.raw()), nullptr,
                                        "fp::functional in-place activation");
}

/// Writes `result` (of the input's dtype and shape) into `target`.
void assign(MutableTensor target, const Tensor& result) {
  aten::copy_(target, result);
}

}  // namespace

void relu_(MutableTensor input) {
  aten::relu_(input);
}

void selu_(MutableTensor input) {
  aten::selu_(input);
}

void elu_(MutableTensor input, const EluOptions& options) {
  assign(input, elu(current(input), options));
}

void celu_(MutableTensor input, const CeluOptions& options) {
  assign(input, celu(current(input), options));
}

void hardtanh_(MutableTensor input, const HardtanhOptions& options) {
  assign(input, hardtanh(current(input), options));
}

void leaky_relu_(MutableTensor input, const LeakyReluOptions& options) {
  assign(input, leaky_relu(current(input), options));
}

void rrelu_(MutableTensor input, const RreluOptions& options) {
  assign(input, rrelu(current(input), options));
}

void threshold_(MutableTensor input, double threshold, double value) {
  assign(input, functional::threshold(current(input), threshold, value));
}

}  // namespace fp::functional
