// torch's CPU sampling kernels, mirrored bit for bit (random_kernels.cpp;
// libtorch_cpu.h says why they are mirrored). Each writes `count` contiguous
// samples to `out`, drawn from `generator` exactly as torch's kernel for a
// contiguous CPU tensor of that dtype draws them.
#pragma once

#include <cstdint>

#include "core/random_arguments.h"
#include "flash_powder/core/generator.h"

namespace fp::mirrored {

/// torch's uniform_kernel: [0, 1). T: float, double, Half, BFloat16.
template <class T>
void fill_uniform(Generator& generator, T* out, std::int64_t count);

/// torch's normal_kernel with mean 0: Box-Muller per element below 16
/// samples, normal_fill (the AVX2 Cephes version where the running torch
/// dispatches normal_stub to its AVX2 build: kernel_build(Stub::Normal)) above.
template <class T>
void fill_normal(Generator& generator, T* out, std::int64_t count, double stddev);

/// torch's exponential_kernel (ATen/native/cpu/DistributionTemplates.h):
/// one double uniform u per element, -1/lambda * log1p(-u) in double (libm's
/// log1p, as at::log1p calls), then cast to T.
template <class T>
void fill_exponential(Generator& generator, T* out, std::int64_t count, double lambda);

/// torch's random_from_to kernel: integers in [range.low, range.high) stored as T.
template <class T>
void fill_integers(Generator& generator, detail::IntegerRange range, T* out, std::int64_t count);

}  // namespace fp::mirrored
