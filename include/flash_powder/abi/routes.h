// Switching off flash_powder's routes around libtorch's dispatcher. For the
// ops where the stable C ABI offers a cheaper entry point than
// torch_call_dispatcher, flash_powder takes it (src/abi/direct.h):
//
//   * backend kernels: libtorch's `aoti_torch_cpu_<op>` shims call the CPU
//     kernel directly (PyTorch's `at::cpu::<op>`), for CPU tensors only;
//   * views: flash_powder computes a view's sizes, strides and offset itself
//     and makes the tensor with `aoti_torch__reinterpret_tensor`.
//
// Skipping the dispatcher gives up what it adds around a kernel: profiler
// events, dispatch modes and autocast (autograd too, which an inference
// library does not use). docs/architecture.md says which op takes which
// route; `FP_FORCE_DISPATCHER=1` in the environment, or a
// fp::abi::ForceDispatcher on the calling thread, sends every op through
// the dispatcher instead.
#pragma once

namespace fp::abi {

/// False while the dispatcher route is forced (FP_FORCE_DISPATCHER=1 when the
/// process started, or a ForceDispatcher alive on this thread).
bool direct_routes_enabled() noexcept;

/// While alive, every op called on this thread goes through libtorch's
/// dispatcher (e.g. to see them in a profiler). Nests.
class ForceDispatcher {
 public:
  ForceDispatcher() noexcept;
  ~ForceDispatcher();
  ForceDispatcher(const ForceDispatcher&) = delete;
  ForceDispatcher& operator=(const ForceDispatcher&) = delete;
};

}  // namespace fp::abi
