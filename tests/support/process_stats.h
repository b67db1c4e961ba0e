// What a long-running program watches of itself: resident memory, the C
// library's heap in use, and the libtorch handles flash_powder holds. Shared
// by the per-op leak check (tests/leak) and the soak (bench/soak).
// Header-only: the soak links no test library.
#pragma once

#include <malloc.h>

#include <cstdint>
#include <fstream>
#include <optional>
#include <string>

#include "abi/testing.h"

namespace fp_test {

/// VmRSS of /proc/self/status in bytes (Linux); 0 when it cannot be read.
inline std::int64_t resident_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6)) * 1024;  // "... kB"
  }
  return 0;
}

/// Bytes the C library's malloc has handed out and not had back, over all
/// arenas (glibc's mallinfo2: uordblks + hblkhd): exact where RSS moves by
/// pages. nullopt where malloc is not glibc's 2.33 or later.
inline std::optional<std::int64_t> heap_in_use_bytes() {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  const struct mallinfo2 info = ::mallinfo2();
  return static_cast<std::int64_t>(info.uordblks + info.hblkhd);
#else
  return std::nullopt;
#endif
}

/// The libtorch handles (tensors, generators, lists) flash_powder's owners
/// hold right now; nullopt in builds that do not count them (FP_HANDLE_COUNT
/// off: release builds). The one place that reads fp::abi::testing, whose
/// header is to become private.
inline std::optional<std::int64_t> live_handles() {
  if constexpr (!fp::abi::testing::counts_handles) return std::nullopt;
  const fp::abi::testing::LiveHandles live = fp::abi::testing::live_handles();
  return live.tensors + live.generators + live.lists;
}

}  // namespace fp_test
