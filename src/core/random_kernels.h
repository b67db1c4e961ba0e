// torch's CPU sampling kernels, reproduced bit for bit (random_kernels.cpp).
// Each returns `count` contiguous samples drawn from `generator` exactly as
// torch's kernel for a contiguous CPU tensor of that dtype draws them.
#pragma once

#include <cstdint>
#include <vector>

#include "flash_powder/core/generator.h"
#include "random_arguments.h"

namespace fp::detail {

/// torch's uniform_kernel: [0, 1). T: float, double, Half, BFloat16.
template <class T>
std::vector<T> uniform_samples(Generator& generator, std::int64_t count);

/// torch's normal_kernel with mean 0: Box-Muller per element below 16
/// samples, normal_fill (the AVX2 Cephes version where torch runs it) above.
template <class T>
std::vector<T> normal_samples(Generator& generator, std::int64_t count, double stddev);

/// torch's random_from_to kernel: integers in [range.low, range.high) stored as T.
template <class T>
std::vector<T> integer_samples(Generator& generator, IntegerRange range, std::int64_t count);

}  // namespace fp::detail
