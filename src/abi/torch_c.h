// The one place flash_powder includes libtorch's stable C headers. Only files
// in src/abi include this; everything above talks to fp::abi instead.
#pragma once

#include <torch/csrc/inductor/aoti_torch/c/shim.h>
#include <torch/csrc/inductor/aoti_torch/generated/c_shim_aten.h>
#include <torch/csrc/inductor/aoti_torch/generated/c_shim_cpu.h>
#include <torch/csrc/stable/c/shim.h>

#include "flash_powder/abi/error.h"
#include "flash_powder/base/device.h"
#include "flash_powder/base/dtype.h"
#include "flash_powder/base/layout.h"

namespace fp::abi {

// Functions newer than the stable ABI the binaries target (torch 2.11). They
// are looked up in the loaded libtorch at run time; each has a fallback or
// reports clearly that the running torch lacks it.
namespace late {
/// torch_exception_get_what_without_backtrace (2.13); nullptr before.
const char* last_error_message();
/// torch_new_stable_ivalue (2.13); plain `new` before, which is what older
/// libtorch frees with `delete`.
StableIValue* new_stable_ivalue();
void delete_stable_ivalue(StableIValue* value) noexcept;
/// torch_new_generator_handle / torch_delete_generator (2.13).
bool has_generators();
AOTITorchError new_generator_handle(AtenGeneratorHandle self, AtenGeneratorHandle* out);
AOTITorchError delete_generator(AtenGeneratorHandle generator);
}  // namespace late

// Translations between flash_powder's vocabulary types and the int32 codes of
// the running libtorch (read from aoti_torch_dtype_*() and friends, because
// their values are not part of the ABI contract).
std::int32_t to_code(DType dtype);
DType dtype_from_code(std::int32_t code);
std::int32_t to_code(DeviceType type);
DeviceType device_type_from_code(std::int32_t code);
std::int32_t to_code(Layout layout);
Layout layout_from_code(std::int32_t code);
std::int32_t to_code(MemoryFormat format);
MemoryFormat memory_format_from_code(std::int32_t code);

}  // namespace fp::abi
