// fp::Generator: reproducible random numbers, equal to Python's.
//
// libtorch's stable ABI offers no way to create or seed a torch.Generator, so
// flash_powder carries torch's CPU generator itself: the same Mersenne
// Twister, seeded the same way, and the same transformations from random bits
// to uniform, normal and integer samples. Hence
//
//     fp::Generator generator(42);
//     fp::Tensor x = fp::randn({2, 3}, generator);
//
// holds the numbers `torch.randn(2, 3, generator=torch.Generator().manual_seed(42))`
// does. Samples are drawn on the CPU and then moved to the requested device,
// so on CUDA they equal Python's CPU generator, not its CUDA one.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace fp {

/// Not thread-safe: one generator belongs to one thread at a time (torch
/// locks its generators; give each thread its own fp::Generator instead).
class Generator {
 public:
  /// torch's default seed (`torch.Generator().initial_seed()`).
  static constexpr std::uint64_t default_seed = 67280421310721ULL;

  /// A generator seeded with `seed`, like `torch.Generator().manual_seed(seed)`.
  explicit Generator(std::uint64_t seed = default_seed) { manual_seed(seed); }

  /// Restarts the sequence. Python: `generator.manual_seed(seed)`.
  void manual_seed(std::uint64_t seed);
  /// Python: `generator.initial_seed()`.
  std::uint64_t initial_seed() const { return seed_; }

  /// The next 32 random bits (torch's `CPUGeneratorImpl::random()`).
  /// Inline: initialising a large layer draws tens of millions of these.
  std::uint32_t random() {
    if (next_ >= kStateSize) regenerate_state();
    return tempered(state_[static_cast<std::size_t>(next_++)]);
  }
  /// The next 64 random bits (torch's `CPUGeneratorImpl::random64()`): the
  /// first 32 bits drawn are the high half.
  std::uint64_t random64() {
    const std::uint64_t high = random();
    const std::uint64_t low = random();
    return (high << 32) | low;
  }

  /// The spare sample of torch's Box-Muller normal sampling, kept between calls
  /// exactly as torch keeps it (part of the generator's state).
  std::optional<double>& next_double_normal_sample() { return next_double_normal_; }
  /// The same for float32 sampling.
  std::optional<float>& next_float_normal_sample() { return next_float_normal_; }

 private:
  /// MT19937's "twist": computes the next 624 words of state at once.
  void regenerate_state();
  /// MT19937's output tempering, which spreads the state bits over the result.
  static std::uint32_t tempered(std::uint32_t y) {
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= y >> 18;
    return y;
  }

  static constexpr int kStateSize = 624;
  std::uint64_t seed_ = default_seed;
  std::array<std::uint32_t, kStateSize> state_{};
  int next_ = kStateSize;
  std::optional<double> next_double_normal_;
  std::optional<float> next_float_normal_;
};

}  // namespace fp
