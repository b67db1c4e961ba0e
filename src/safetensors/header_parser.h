// Reading the JSON header of a safetensors file (internal).
#pragma once

#include <string_view>

#include "flash_powder/safetensors/format.h"

namespace fp::safetensors::detail {

/// The tensors (in header order) and metadata of a JSON header. Checks the
/// structure: one object without duplicate keys, `__metadata__` a
/// string-to-string object, every other entry an object with a known "dtype",
/// a "shape" of non-negative integers that fit int64 and "data_offsets" of two
/// non-negative integers. Offsets and sizes are checked by the caller.
/// Throws fp::Error naming the tensor and the rule.
Header parse_header_json(std::string_view json, std::string_view source);

}  // namespace fp::safetensors::detail
