// A view becomes an owning Tensor only explicitly, like std::string{string_view}.
#include <flash_powder/flash_powder.h>

void snippet(const fp::TensorView& view) {
#ifdef FP_SHOULD_FAIL
  fp::Tensor owned = view;
#else
  fp::Tensor owned{view};
#endif
  (void)owned;
}
