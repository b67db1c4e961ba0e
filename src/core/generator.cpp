// fp::Generator: torch's CPU generator (CPUGeneratorImpl over at::mt19937).
//
// The engine is the reference MT19937 (Matsumoto & Nishimura, init_genrand
// seeding). What makes it torch's and not just any MT19937 are three facts
// this file reproduces:
//   - the 64-bit seed is kept whole for initial_seed(), but only its low 32
//     bits seed the state;
//   - random64() joins two draws with the FIRST one in the high half;
//   - reseeding forgets the cached Box-Muller spare samples.
#include "flash_powder/core/generator.h"

namespace fp {

namespace {

constexpr std::size_t kShift = 397;  // MT19937's "m": the distance of the recurrence
constexpr std::uint32_t kTwistMatrix = 0x9908b0dfU;
constexpr std::uint32_t kUpperBit = 0x80000000U;
constexpr std::uint32_t kLowerBits = 0x7fffffffU;

/// The recurrence step of MT19937: the upper bit of `current` joined with the
/// lower bits of `following`, shifted and twisted.
std::uint32_t twisted(std::uint32_t current, std::uint32_t following) {
  const std::uint32_t joined = (current & kUpperBit) | (following & kLowerBits);
  return (joined >> 1) ^ ((following & 1U) != 0 ? kTwistMatrix : 0U);
}

}  // namespace

void Generator::manual_seed(std::uint64_t seed) {
  seed_ = seed;
  // at::mt19937 seeds with the low 32 bits only (init_genrand); the full
  // seed is what initial_seed() reports.
  state_[0] = static_cast<std::uint32_t>(seed & 0xffffffffU);
  for (int i = 1; i < kStateSize; ++i) {
    const std::uint32_t previous = state_[i - 1];
    state_[i] = 1812433253U * (previous ^ (previous >> 30)) + static_cast<std::uint32_t>(i);
  }
  next_ = kStateSize;  // the first draw regenerates the whole state
  // CPUGeneratorImpl::set_current_seed drops the Box-Muller spares too.
  next_double_normal_.reset();
  next_float_normal_.reset();
}

void Generator::regenerate_state() {
  // The reference recurrence state[i] = state[(i + m) % n] ^ twisted(state[i],
  // state[(i + 1) % n]), in three stretches so that no index needs a modulo.
  constexpr std::size_t n = kStateSize;
  constexpr std::size_t m = kShift;
  auto& s = state_;
  for (std::size_t i = 0; i < n - m; ++i)
    s[i] = s[i + m] ^ twisted(s[i], s[i + 1]);
  for (std::size_t i = n - m; i < n - 1; ++i)
    s[i] = s[i + m - n] ^ twisted(s[i], s[i + 1]);
  s[n - 1] = s[m - 1] ^ twisted(s[n - 1], s[0]);
  next_ = 0;
}

}  // namespace fp
