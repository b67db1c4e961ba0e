// The CPU's and CUDA's tables of Scalar-taking shims (scalar_shims.h).
#include "scalar_shims.h"

#include <dlfcn.h>

#include <string>
#include <utility>

#include "abi/direct.h"
#include "flash_powder/abi/tensor_handle.h"
#include "torch_c.h"

namespace fp::abi {
namespace {

// Each shim of the table once: its member, and the CPU's and CUDA's symbols.
#define FP_FOR_EACH_SCALAR_SHIM(X)                                                          \
  X(add_Tensor, aoti_torch_cpu_add_Tensor, aoti_torch_cuda_add_Tensor)                      \
  X(add_Scalar, aoti_torch_cpu_add_Scalar, aoti_torch_cuda_add_Scalar)                      \
  X(mul_Scalar, aoti_torch_cpu_mul_Scalar, aoti_torch_cuda_mul_Scalar)                      \
  X(pow_Tensor_Scalar, aoti_torch_cpu_pow_Tensor_Scalar, aoti_torch_cuda_pow_Tensor_Scalar) \
  X(pow_Scalar, aoti_torch_cpu_pow_Scalar, aoti_torch_cuda_pow_Scalar)                      \
  X(addmv, aoti_torch_cpu_addmv, aoti_torch_cuda_addmv)                                     \
  X(addbmm, aoti_torch_cpu_addbmm, aoti_torch_cuda_addbmm)                                  \
  X(addmm_activation, aoti_torch_cpu__addmm_activation, aoti_torch_cuda__addmm_activation)  \
  X(histc, aoti_torch_cpu_histc, aoti_torch_cuda_histc)                                     \
  X(fill_Scalar_, aoti_torch_cpu_fill__Scalar, aoti_torch_cuda_fill__Scalar)                \
  X(addmm_out, aoti_torch_cpu_addmm_out, aoti_torch_cuda_addmm_out)                         \
  X(baddbmm_out, aoti_torch_cpu_baddbmm_out, aoti_torch_cuda_baddbmm_out)                   \
  X(scatter_value_out, aoti_torch_cpu_scatter_value_out, aoti_torch_cuda_scatter_value_out)

constexpr ScalarShims cpu_shims = [] {
  ScalarShims shims{};
#define FP_CPU_SHIM(member, cpu, cuda) shims.member = &cpu;
  FP_FOR_EACH_SCALAR_SHIM(FP_CPU_SHIM)
#undef FP_CPU_SHIM
  return shims;
}();

/// `aoti_torch_cuda_<op>` with the CPU shim's signature, or null.
template <class Function>
Function cuda_shim(Function /*cpu_twin*/, const char* name) {
  // RTLD_DEFAULT searches every library already loaded: libtorch_cuda where
  // the loaded torch has CUDA.
  return reinterpret_cast<Function>(dlsym(RTLD_DEFAULT, name));
}

/// CUDA's table, or null where any shim is missing (a torch without CUDA).
const ScalarShims* find_cuda_shims() {
  static const auto found = [] {
    ScalarShims shims{};
    bool complete = true;
#define FP_CUDA_SHIM(member, cpu, cuda)              \
  shims.member = cuda_shim(cpu_shims.member, #cuda); \
  complete = complete && shims.member != nullptr;
    FP_FOR_EACH_SCALAR_SHIM(FP_CUDA_SHIM)
#undef FP_CUDA_SHIM
    return std::pair(shims, complete);
  }();
  return found.second ? &found.first : nullptr;
}

#undef FP_FOR_EACH_SCALAR_SHIM

std::string describe(RawTensor tensor) {
  if (tensor == nullptr || !is_defined(tensor)) return "an undefined tensor";
  return "a tensor on " + device(tensor).str() + " with layout " +
         std::string(fp::name(layout(tensor)));
}

}  // namespace

const ScalarShims* scalar_shims(DeviceType type) noexcept {
  switch (type) {
    case DeviceType::CPU:
      return &cpu_shims;
    case DeviceType::CUDA: {
      static const ScalarShims* const cuda = find_cuda_shims();
      return cuda;
    }
    default:
      return nullptr;
  }
}

const ScalarShims& scalar_shims_for(const char* what, std::initializer_list<RawTensor> tensors) {
  const RawTensor first = *tensors.begin();
  const ScalarShims* shims =
      viewable(first) ? scalar_shims(device(first).type) : static_cast<const ScalarShims*>(nullptr);
  for (RawTensor tensor : tensors) {
    if (shims != nullptr && viewable(tensor) && device(tensor).type == device(first).type) continue;
    throw Error(ErrorCode::Unsupported,
                std::string(what) +
                    ": flash_powder calls it on strided CPU or CUDA tensors only (its Scalar "
                    "argument crosses libtorch's stable ABI only to a backend's kernel); got " +
                    describe(tensor));
  }
  return *shims;
}

}  // namespace fp::abi
