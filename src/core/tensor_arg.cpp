#include "flash_powder/core/tensor.h"

namespace fp {

detail::BorrowState* TensorArg::borrowed_from() const {
  switch (kind_) {
    case Kind::Tensor:
      return static_cast<const Tensor*>(source_)->borrow_state();
    case Kind::View:
      return static_cast<const TensorView*>(source_)->borrowed_from();
    case Kind::MutView:
      return static_cast<const TensorMutView*>(source_)->borrow_state();
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
  return tensor_ ? tensor_->borrow_state() : view_->borrow_state();
}

void MutableTensor::check_mutation(const char* operation, int own_arguments) const {
  if (tensor_) {
    tensor_->check_mutation(operation, own_arguments);
  } else {
    view_->check_mutation(operation, own_arguments);
  }
}

abi::Arg MutableTensor::to_arg() const {
  // Non-const lvalues: fp::dispatch takes them as lent for writing.
  return tensor_ ? abi::to_arg(*tensor_) : abi::to_arg(*view_);
}

}  // namespace fp
