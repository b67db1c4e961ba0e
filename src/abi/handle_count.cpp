#include "flash_powder/abi/handle_count.h"

#include <array>
#include <atomic>

#include "testing.h"

namespace fp::abi {
namespace {

#if FP_HANDLE_COUNT
// Relaxed: the counts order nothing; a test reads them after joining its threads.
std::array<std::atomic<std::int64_t>, 3> live_counts{};

std::int64_t live(HandleKind kind) noexcept {
  return live_counts[static_cast<std::size_t>(kind)].load(std::memory_order_relaxed);
}
#else
std::int64_t live(HandleKind /*kind*/) noexcept {
  return 0;
}
#endif

}  // namespace

#if FP_HANDLE_COUNT
void count_handle(HandleKind kind, int delta) noexcept {
  live_counts[static_cast<std::size_t>(kind)].fetch_add(delta, std::memory_order_relaxed);
}
#endif

testing::LiveHandles testing::live_handles() noexcept {
  return {live(HandleKind::tensor), live(HandleKind::generator), live(HandleKind::list)};
}

}  // namespace fp::abi
