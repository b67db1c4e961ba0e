// The loaded libtorch's integer codes of flash_powder's enums, for C
// interfaces that pass them as int32 (an AOTInductor model's
// `GetConstantDtype`, `aoti_torch_get_dtype`).
#pragma once

#include <cstdint>

#include "flash_powder/base/dtype.h"

namespace fp::abi {

/// The DType of the loaded torch's dtype code (`aoti_torch_dtype_float32()`
/// is float32's). Throws fp::Error for a code flash_powder does not know.
DType dtype_from_code(std::int32_t code);

}  // namespace fp::abi
