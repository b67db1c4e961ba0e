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

constexpr int kShift = 397;  // MT19937's "m": the distance of the recurrence
constexpr std::uint32_t kTwistMatrix = 0x9908b0dfU;
constexpr std::uint32_t kUpperBit = 0x80000000U;
constexpr std::uint32_t kLowerBits = 0x7fffffffU;

/// The recurrence step of MT19937: the upper bit of `current` joined with the
/// lower bits of `following`, shifted and twisted.
std::uint32_t twisted(std::uint32_t current, std::uint32_t following) {
  const std::uint32_t joined = (current & kUpperBit) | (following & kLowerBits);
  return (joined >> 1) ^ ((following & 1U) != 0 ? kTwistMatrix : 0U);
}

/// MT19937's output tempering, which spreads the state bits over the result.
std::uint32_t tempered(std::uint32_t y) {
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680U;
  y ^= (y << 15) & 0xefc60000U;
  y ^= y >> 18;
  return y;
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
  for (int i = 0; i < kStateSize; ++i) {
    const std::uint32_t following = state_[(i + 1) % kStateSize];
    state_[i] = state_[(i + kShift) % kStateSize] ^ twisted(state_[i], following);
  }
  next_ = 0;
}

std::uint32_t Generator::random() {
  if (next_ >= kStateSize) regenerate_state();
  return tempered(state_[next_++]);
}

std::uint64_t Generator::random64() {
  // CPUGeneratorImpl::random64: the first 32 bits drawn are the high half.
  const std::uint64_t high = random();
  const std::uint64_t low = random();
  return (high << 32) | low;
}

}  // namespace fp
