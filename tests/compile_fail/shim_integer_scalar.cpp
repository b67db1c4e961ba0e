// fp::aten::shim passes each number as a Python float: an integer, whose
// Scalar would give another result dtype, does not compile.
#include <flash_powder/aten/shim.h>

fp::Tensor snippet(const fp::Tensor& integers) {
#ifdef FP_SHOULD_FAIL
  return fp::aten::shim::mul_Scalar(integers, 2);
#else
  return fp::aten::shim::mul_Scalar(integers, 2.0);
#endif
}
