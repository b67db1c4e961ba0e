#include "flash_powder/abi/runtime.h"

#include <dlfcn.h>

#include "torch_c.h"

namespace fp {
namespace {

TorchVersion version_from_abi(std::uint64_t abi_version) {
  // TORCH_ABI_VERSION packs major << 56 | minor << 48 | patch << 40.
  return {static_cast<int>((abi_version >> 56) & 0xff),
          static_cast<int>((abi_version >> 48) & 0xff),
          static_cast<int>((abi_version >> 40) & 0xff)};
}

}  // namespace

std::string TorchVersion::str() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

TorchVersion torch_version() {
  return version_from_abi(aoti_torch_abi_version());
}

TorchVersion torch_build_version() {
  return version_from_abi(TORCH_ABI_VERSION);
}

TorchVersion torch_target_version() {
  return version_from_abi(TORCH_TARGET_VERSION);
}

int torch_num_threads() {
  std::uint32_t threads = 1;
  abi::check(torch_get_num_threads(&threads), "torch_get_num_threads");
  return static_cast<int>(threads);
}

bool cuda_is_available() {
  // libtorch_cuda registers its kernels when loaded; without it (or without a
  // GPU) an empty CUDA tensor cannot be made. That probe needs no CUDA symbol.
  static const bool available = [] {
    if (dlsym(RTLD_DEFAULT, "aoti_torch_create_cuda_guard") == nullptr) return false;
    const std::int64_t size = 1;
    const std::int64_t stride = 1;
    AtenTensorHandle probe = nullptr;
    const auto status = aoti_torch_empty_strided(1, &size, &stride, aoti_torch_dtype_float32(),
                                                 aoti_torch_device_type_cuda(), 0, &probe);
    if (status != AOTI_TORCH_SUCCESS) return false;
    aoti_torch_delete_tensor_object(probe);
    return true;
  }();
  return available;
}

}  // namespace fp
