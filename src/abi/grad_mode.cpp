// fp::EnableGrad and the grad-mode switch of abi::NoGradScope.
#include "flash_powder/abi/grad_mode.h"

#include "no_grad.h"
#include "torch_c.h"

namespace fp {
namespace {

thread_local int enable_grad_scopes = 0;

}  // namespace

bool is_grad_enabled() {
  return aoti_torch_grad_mode_is_enabled();
}

EnableGrad::EnableGrad() : was_enabled_(aoti_torch_grad_mode_is_enabled()) {
  ++enable_grad_scopes;
  aoti_torch_grad_mode_set_enabled(true);
}

EnableGrad::~EnableGrad() {
  --enable_grad_scopes;
  aoti_torch_grad_mode_set_enabled(was_enabled_);
}

namespace abi {

int enable_grad_depth() noexcept {
  return enable_grad_scopes;
}

bool torch_grad_enabled() noexcept {
  return aoti_torch_grad_mode_is_enabled();
}

void set_torch_grad_enabled(bool enabled) noexcept {
  aoti_torch_grad_mode_set_enabled(enabled);
}

}  // namespace abi
}  // namespace fp
