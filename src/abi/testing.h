// Hooks for flash_powder's own tests: not part of the public API, and not
// included by flash_powder.h.
#pragma once

#include <cstdint>
#include <optional>

#include "flash_powder/abi/runtime.h"
#include "flash_powder/config.h"

namespace fp::abi::testing {

/// Makes the release check of fp::dispatch (which refuses an op the loaded
/// torch lacks, see Schema::availability) take `version` for the loaded
/// torch; std::nullopt restores the real one. Only that check is fooled:
/// libtorch and fp::torch_version() stay what they are, so a test can show
/// the refusal of torch 2.11 while 2.13 is loaded. Not thread-safe: call it
/// while no other thread dispatches.
void pretend_loaded_torch(std::optional<TorchVersion> version);

/// Whether this build counts live handles (FP_HANDLE_COUNT, abi/handle_count.h).
inline constexpr bool counts_handles = FP_HANDLE_COUNT != 0;

/// The libtorch handles flash_powder's owners hold right now, by kind.
struct LiveHandles {
  std::int64_t tensors = 0;
  std::int64_t generators = 0;
  std::int64_t lists = 0;
  bool operator==(const LiveHandles&) const = default;
};

/// The live count of each kind; all zero when the build does not count.
LiveHandles live_handles() noexcept;

}  // namespace fp::abi::testing
