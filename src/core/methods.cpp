// What the generated methods (tools/generate_tensor_api.py) need of the
// tensor classes: each tensor as an op argument, and views registered with
// the borrow checker.
#include "flash_powder/core/tensor.h"

namespace fp::detail {

TensorArg TensorMethods::self_arg() const {
  return TensorAccess::unchecked(static_cast<const TensorBase&>(*this));
}

TensorArg TensorBase::as_arg() const {
  return TensorAccess::unchecked(*this);
}

TensorView view_of(const ViewSource& source, abi::TensorHandle handle, const char* origin) {
  return TensorAccess::view(std::move(handle), source.owner, origin);
}

}  // namespace fp::detail
