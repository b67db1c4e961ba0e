#include "flash_powder/core/tensor.h"

namespace fp {

detail::BorrowState* TensorArg::borrowed_from() const {
  switch (kind_) {
    case Kind::Tensor:
      return detail::TensorAccess::borrow_state(*static_cast<const Tensor*>(source_));
    case Kind::View:
      return detail::TensorAccess::borrowed_from(*static_cast<const TensorView*>(source_));
    case Kind::MutView:
      return detail::TensorAccess::borrow_state(*static_cast<const TensorMutView*>(source_));
    case Kind::Unchecked:
      return nullptr;
  }
  return nullptr;
}

abi::Arg TensorArg::to_arg() const {
  switch (kind_) {
    case Kind::Tensor:
      return abi::to_arg(*static_cast<const Tensor*>(source_));
    case Kind::View:
      return abi::to_arg(*static_cast<const TensorView*>(source_));
    case Kind::MutView:
      return abi::to_arg(*static_cast<const TensorMutView*>(source_));
    case Kind::Unchecked:
      return {raw_};
  }
  return {raw_};
}

detail::BorrowState* MutableTensor::borrow_state() const {
  return tensor_ ? detail::TensorAccess::borrow_state(*tensor_)
                 : detail::TensorAccess::borrow_state(*view_);
}

void MutableTensor::check_mutation(const char* operation, int own_arguments) const {
  if (tensor_) {
    detail::TensorAccess::check_mutation(*tensor_, operation, own_arguments);
  } else {
    detail::TensorAccess::check_mutation(*view_, operation, own_arguments);
  }
}

abi::Arg MutableTensor::to_arg() const {
  // Non-const lvalues: fp::dispatch takes them as lent for writing.
  return tensor_ ? abi::to_arg(*tensor_) : abi::to_arg(*view_);
}

}  // namespace fp
