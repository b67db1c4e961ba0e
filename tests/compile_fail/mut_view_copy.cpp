// A TensorMutView is a unique borrow: it moves but never copies.
#include <flash_powder/flash_powder.h>

#include <utility>

void snippet(fp::TensorMutView view) {
#ifdef FP_SHOULD_FAIL
  fp::TensorMutView copy = view;
#else
  fp::TensorMutView moved = std::move(view);
#endif
}
