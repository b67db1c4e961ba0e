// A debug count of the libtorch handles flash_powder's owners hold
// (TensorHandle, GeneratorHandle, the list handles of a dispatcher call), so
// that a test can tell that it left none behind without running valgrind.
//
// Compiled in when the build sets FP_HANDLE_COUNT (debug, borrow-checking and
// sanitizer builds); otherwise every function here is an empty inline one and
// the owners cost nothing more.
#pragma once

#include <cstdint>

#include "flash_powder/config.h"

namespace fp::abi {

/// The kinds of handle that are counted.
enum class HandleKind : std::uint8_t { tensor, generator, list };

#if FP_HANDLE_COUNT
/// Adds `delta` (+1 when an owner takes a handle, -1 when it frees or gives
/// it up) to the live count of `kind`. Thread-safe.
void count_handle(HandleKind kind, int delta) noexcept;
#else
inline void count_handle(HandleKind /*kind*/, int /*delta*/) noexcept {}
#endif

}  // namespace fp::abi
