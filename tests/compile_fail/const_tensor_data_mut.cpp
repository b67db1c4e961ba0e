// A const Tensor offers no write access to its data.
#include <flash_powder/flash_powder.h>

void snippet(fp::Tensor& writable, const fp::Tensor& constant) {
#ifdef FP_SHOULD_FAIL
  constant.data_mut<float>()[0] = 1.f;
#else
  writable.data_mut<float>()[0] = constant.data<float>()[0];
#endif
}
