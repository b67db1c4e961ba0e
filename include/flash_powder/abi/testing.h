// Hooks for flash_powder's own tests: not part of the public API, and not
// included by flash_powder.h.
#pragma once

#include <optional>

#include "flash_powder/abi/runtime.h"

namespace fp::abi::testing {

/// Makes the release check of fp::dispatch (which refuses an op the loaded
/// torch lacks, see Schema::availability) take `version` for the loaded
/// torch; std::nullopt restores the real one. Only that check is fooled:
/// libtorch and fp::torch_version() stay what they are, so a test can show
/// the refusal of torch 2.11 while 2.13 is loaded. Not thread-safe: call it
/// while no other thread dispatches.
void pretend_loaded_torch(std::optional<TorchVersion> version);

}  // namespace fp::abi::testing
