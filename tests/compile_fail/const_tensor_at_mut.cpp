// A const Tensor offers no writable element reference.
#include <flash_powder/flash_powder.h>

void snippet(fp::Tensor& writable, const fp::Tensor& constant) {
#ifdef FP_SHOULD_FAIL
  constant.at_mut<float>({0}) = 1.f;
#else
  writable.at_mut<float>({0}) = constant.at<float>({0});
#endif
}
