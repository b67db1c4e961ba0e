// Loads libtorch's device backends next to the libtorch flash_powder runs on.
//
// flash_powder references only C shim functions, all of which live in
// libtorch_cpu.so, so the linker records no need for libtorch_cuda.so. But
// that library is what registers the CUDA kernels with the dispatcher. A
// binary built against a CPU-only torch must still use CUDA when it runs on a
// CUDA build of torch, so the backend is loaded at run time, from the folder
// the loaded libtorch_cpu.so came from, when it exists there.
#include <dlfcn.h>

#include <string>

#include "torch_c.h"

namespace fp::abi {
namespace {

std::string folder_of_libtorch() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&aoti_torch_abi_version), &info) == 0 ||
      info.dli_fname == nullptr) {
    return {};
  }
  const std::string path = info.dli_fname;
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

struct BackendLoader {
  BackendLoader() {
    const std::string folder = folder_of_libtorch();
    for (const char* name : {"libtorch.so", "libtorch_cuda.so"}) {
      const std::string path = folder + name;
      // RTLD_GLOBAL: the backend's own symbols must be visible to later lookups.
      // A missing library (a CPU-only torch) or one whose CUDA runtime is
      // absent simply leaves the backend out; cuda_is_available() says so.
      if (void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD)) {
        dlclose(handle);  // already loaded by the executable's own link line
        continue;
      }
      dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    }
  }
};

// Runs when libflash_powder.so is loaded, before any op can be called.
const BackendLoader load_backends;

}  // namespace
}  // namespace fp::abi
