// The CPU's and CUDA's tables of Scalar-taking shims (scalar_shims.h).
#include "scalar_shims.h"

#include <dlfcn.h>

#include <string>

#include "abi/direct.h"
#include "flash_powder/abi/tensor_handle.h"
#include "torch_c.h"

namespace fp::abi {
namespace {

constexpr ScalarShims cpu_shims = {
    &aoti_torch_cpu_add_Tensor,
    &aoti_torch_cpu_add_Scalar,
    &aoti_torch_cpu_mul_Scalar,
    &aoti_torch_cpu_pow_Tensor_Scalar,
    &aoti_torch_cpu_pow_Scalar,
    &aoti_torch_cpu_addmv,
    &aoti_torch_cpu_addbmm,
    &aoti_torch_cpu__addmm_activation,
    &aoti_torch_cpu_histc,
    &aoti_torch_cpu_fill__Scalar,
    &aoti_torch_cpu_addmm_out,
    &aoti_torch_cpu_baddbmm_out,
    &aoti_torch_cpu_scatter_value_out,
};

/// `aoti_torch_cuda_<op>` with the CPU shim's signature, or null.
template <class Function>
Function cuda_shim(Function /*cpu_twin*/, const char* name) {
  // RTLD_DEFAULT searches every library already loaded: libtorch_cuda where
  // the loaded torch has CUDA.
  return reinterpret_cast<Function>(dlsym(RTLD_DEFAULT, name));
}

/// CUDA's table, or null where any shim is missing (a torch without CUDA).
const ScalarShims* find_cuda_shims() {
  static const ScalarShims found = {
      cuda_shim(cpu_shims.add_Tensor, "aoti_torch_cuda_add_Tensor"),
      cuda_shim(cpu_shims.add_Scalar, "aoti_torch_cuda_add_Scalar"),
      cuda_shim(cpu_shims.mul_Scalar, "aoti_torch_cuda_mul_Scalar"),
      cuda_shim(cpu_shims.pow_Tensor_Scalar, "aoti_torch_cuda_pow_Tensor_Scalar"),
      cuda_shim(cpu_shims.pow_Scalar, "aoti_torch_cuda_pow_Scalar"),
      cuda_shim(cpu_shims.addmv, "aoti_torch_cuda_addmv"),
      cuda_shim(cpu_shims.addbmm, "aoti_torch_cuda_addbmm"),
      cuda_shim(cpu_shims.addmm_activation, "aoti_torch_cuda__addmm_activation"),
      cuda_shim(cpu_shims.histc, "aoti_torch_cuda_histc"),
      cuda_shim(cpu_shims.fill_Scalar_, "aoti_torch_cuda_fill__Scalar"),
      cuda_shim(cpu_shims.addmm_out, "aoti_torch_cuda_addmm_out"),
      cuda_shim(cpu_shims.baddbmm_out, "aoti_torch_cuda_baddbmm_out"),
      cuda_shim(cpu_shims.scatter_value_out, "aoti_torch_cuda_scatter_value_out"),
  };
  const bool complete =
      found.add_Tensor && found.add_Scalar && found.mul_Scalar && found.pow_Tensor_Scalar &&
      found.pow_Scalar && found.addmv && found.addbmm && found.addmm_activation && found.histc &&
      found.fill_Scalar_ && found.addmm_out && found.baddbmm_out && found.scatter_value_out;
  return complete ? &found : nullptr;
}

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
