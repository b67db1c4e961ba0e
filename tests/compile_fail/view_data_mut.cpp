// A TensorView never writes, like std::span<const T>.
#include <flash_powder/flash_powder.h>

void snippet(fp::Tensor& writable) {
  const fp::TensorView view = writable;
#ifdef FP_SHOULD_FAIL
  fp::TensorView copy = view;
  copy.data_mut<float>()[0] = 1.f;
#else
  (void)view.data<float>()[0];
#endif
}
