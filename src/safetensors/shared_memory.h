// Python's rule against saving tensors that share memory (internal).
#pragma once

#include <span>

#include "flash_powder/safetensors/save.h"

namespace fp::safetensors::detail {

/// Throws fp::Error listing the groups of `tensors` that share memory, by the
/// rule of Python's `safetensors.torch.save_file`: tensors of one storage
/// whose byte ranges overlap (sorted by start, each compared with the one
/// before). Tensors of one storage that do not overlap are fine, as are
/// copies of one fp::Tensor: they are independent values (copy-on-write),
/// with storages of their own. "One storage" is one libtorch StorageImpl
/// (Python compares data pointers, which copy-on-write copies share), so
/// distinct storages over the same memory (from_blob twice) pass.
void check_no_shared_memory(std::span<const NamedTensor> tensors);

}  // namespace fp::safetensors::detail
