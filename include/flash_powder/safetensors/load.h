// Loading a safetensors file into owned tensors.
// Python: `safetensors.torch.load_file(path)` and `safetensors.torch.load(data)`.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>

#include "flash_powder/core/state_dict.h"

namespace fp::safetensors {

/// Every tensor of the file at `path`, read into new CPU tensors that own
/// their memory, in the order the file's header lists them. The file is
/// validated first (see format.h); any problem throws fp::Error naming the
/// file, the tensor and the rule. Dtypes torch lacks (F6_E2M3, F6_E3M2)
/// throw fp::Error naming the dtype. For tensors that stay in the file's
/// memory without a copy, use MappedFile.
StateDict load(const std::filesystem::path& path);

/// The same for a whole file held in memory; `bytes` may be freed afterwards.
StateDict load(std::span<const std::byte> bytes);

}  // namespace fp::safetensors
