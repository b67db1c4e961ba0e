// abi::NoGradScope: turns libtorch's grad mode off around one call into
// libtorch, unless the thread is inside an fp::EnableGrad (abi/grad_mode.h).
#pragma once

namespace fp::abi {

/// The number of fp::EnableGrad scopes alive on this thread.
int enable_grad_depth() noexcept;
/// libtorch's grad mode of this thread (aoti_torch_grad_mode_is_enabled).
bool torch_grad_enabled() noexcept;
void set_torch_grad_enabled(bool enabled) noexcept;

/// Grad mode off for its lifetime, restored after: the calls flash_powder
/// makes then compute what Python computes under `torch.no_grad()`. Costs
/// one query of libtorch's thread-local flag, and two calls more where a
/// thread left it on (libtorch's default).
class NoGradScope {
 public:
  NoGradScope() noexcept : restore_(torch_grad_enabled() && enable_grad_depth() == 0) {
    if (restore_) set_torch_grad_enabled(false);
  }
  ~NoGradScope() {
    if (restore_) set_torch_grad_enabled(true);
  }
  NoGradScope(const NoGradScope&) = delete;
  NoGradScope& operator=(const NoGradScope&) = delete;

 private:
  bool restore_;
};

}  // namespace fp::abi
