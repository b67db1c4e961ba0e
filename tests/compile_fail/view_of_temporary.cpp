// A view of a temporary Tensor would view nothing once the statement ends.
#include <flash_powder/flash_powder.h>

void snippet(const fp::Tensor& named) {
#ifdef FP_SHOULD_FAIL
  fp::TensorView view = fp::tensor(1.f);
#else
  fp::TensorView view = named;
#endif
  (void)view;
}
