// Looks up the stable-ABI functions newer than the 2.11 target in the loaded
// libtorch, so one binary runs on torch 2.11, 2.13, 2.14 and later.
#include <dlfcn.h>

#include <new>

#include "flash_powder/abi/runtime.h"
#include "torch_c.h"

namespace fp::abi::late {
namespace {

template <class Function>
Function* lookup(const char* symbol) {
  // RTLD_DEFAULT searches every library already loaded, libtorch among them.
  return reinterpret_cast<Function*>(dlsym(RTLD_DEFAULT, symbol));
}

struct Functions {
  const char* (*what_without_backtrace)() =
      lookup<const char*()>("torch_exception_get_what_without_backtrace");
  AOTITorchError (*new_stable_ivalue)(StableIValue**) =
      lookup<AOTITorchError(StableIValue**)>("torch_new_stable_ivalue");
  AOTITorchError (*delete_stable_ivalue)(StableIValue*) =
      lookup<AOTITorchError(StableIValue*)>("torch_delete_stable_ivalue");
  AOTITorchError (*new_generator_handle)(AtenGeneratorHandle, AtenGeneratorHandle*) =
      lookup<AOTITorchError(AtenGeneratorHandle, AtenGeneratorHandle*)>(
          "torch_new_generator_handle");
  AOTITorchError (*delete_generator)(AtenGeneratorHandle) =
      lookup<AOTITorchError(AtenGeneratorHandle)>("torch_delete_generator");
};

const Functions& functions() {
  static const Functions found;
  return found;
}

}  // namespace

const char* last_error_message() {
  auto* what = functions().what_without_backtrace;
  return what ? what() : nullptr;
}

StableIValue* new_stable_ivalue() {
  if (auto* create = functions().new_stable_ivalue) {
    StableIValue* value = nullptr;
    check(create(&value), "torch_new_stable_ivalue");
    return value;
  }
  return new StableIValue(0);
}

void delete_stable_ivalue(StableIValue* value) noexcept {
  if (value == nullptr) return;
  if (auto* destroy = functions().delete_stable_ivalue) {
    destroy(value);
  } else {
    delete value;
  }
}

bool has_generators() {
  return functions().new_generator_handle != nullptr && functions().delete_generator != nullptr;
}

AOTITorchError new_generator_handle(AtenGeneratorHandle self, AtenGeneratorHandle* out) {
  if (!has_generators()) {
    throw Error(ErrorCode::UnsupportedByTorch,
                "torch_new_generator_handle: generators cross the stable ABI from torch 2.13; " +
                    torch_version().str() + " is loaded");
  }
  return functions().new_generator_handle(self, out);
}

AOTITorchError delete_generator(AtenGeneratorHandle generator) {
  // A generator handle can only exist where the functions do (2.13+).
  return has_generators() ? functions().delete_generator(generator) : AOTI_TORCH_FAILURE;
}

}  // namespace fp::abi::late
