// Grad mode: flash_powder runs every op the way Python does under
// `torch.no_grad()`, on every thread, whatever libtorch's own (thread-local)
// grad mode says. fp::EnableGrad is the opt-out.
#pragma once

namespace fp {

/// While alive, the ops this thread runs through flash_powder see libtorch's
/// grad mode on, like Python's `with torch.enable_grad():`. Without it they
/// run as under `torch.no_grad()`, which is what inference wants: some
/// kernels compute differently with grad mode on (`aten::lstm`, the fast
/// paths of `aten::_transformer_encoder_layer_fwd` and
/// `aten::_native_multi_head_attention`). Needed only by a program that
/// records autograd graphs through flash_powder's ops; flash_powder itself
/// computes no gradients. Scopes nest; each restores what it found.
class EnableGrad {
 public:
  EnableGrad();
  ~EnableGrad();
  EnableGrad(const EnableGrad&) = delete;
  EnableGrad& operator=(const EnableGrad&) = delete;

 private:
  bool was_enabled_;
};

/// libtorch's grad mode of the calling thread, like Python's
/// `torch.is_grad_enabled()`: on by default, on every new thread. flash_powder
/// turns it off around each op it runs and restores it after.
bool is_grad_enabled();

}  // namespace fp
