// libtorch's CPU kernel rules (libtorch_cpu.h), for the mirrored kernels.
#include "libtorch_cpu.h"

#include <algorithm>
#include <string_view>

#include "flash_powder/abi/runtime.h"

namespace fp::mirrored {

Capability running_capability() {
  static const Capability capability = [] {
    const std::string_view name = torch_cpu_capability();
    if (name == "AVX512") return Capability::Avx512;
    if (name == "AVX2") return Capability::Avx2;
    return Capability::Default;
  }();
  return capability;
}

Capability kernel_build(Stub stub, Capability running) {
  switch (stub) {
    case Stub::Arange:
    case Stub::Normal:
      // No AVX512 kernel: the AVX2 one runs under AVX512.
      return running == Capability::Avx512 ? Capability::Avx2 : running;
  }
  return running;
}

Capability kernel_build(Stub stub) {
  return kernel_build(stub, running_capability());
}

std::int64_t vector_bytes(Capability build) {
  switch (build) {
    case Capability::Avx512:
      return 64;
    case Capability::Avx2:
      return 32;
    case Capability::Default:
      break;
  }
#if defined(__aarch64__)
  return 16;  // vec_base.h: aarch64 without CPU_CAPABILITY_SVE256
#else
  return 32;
#endif
}

bool fuses_multiply_add(Capability build) {
  return build != Capability::Default;
}

std::vector<Chunk> parallel_chunks(std::int64_t size, std::int64_t grain, std::int64_t threads) {
  if (size <= 0) return {};
  // parallel_for: `numiter > grain_size && numiter > 1 && !in_parallel_region()
  // && get_num_threads() > 1`, else f(begin, end) once.
  if (size <= grain || size <= 1 || threads <= 1) return {{0, size}};
  // invoke_parallel: each of the team's threads takes chunk `tid`.
  const auto divup = [](std::int64_t x, std::int64_t y) { return (x + y - 1) / y; };
  const std::int64_t tasks = grain > 0 ? std::min(threads, divup(size, grain)) : threads;
  const std::int64_t chunk = divup(size, tasks);
  std::vector<Chunk> chunks;
  for (std::int64_t begin = 0; begin < size; begin += chunk)
    chunks.push_back({begin, std::min(size, begin + chunk)});
  return chunks;
}

std::vector<Chunk> parallel_chunks(std::int64_t size, std::int64_t grain) {
  return parallel_chunks(size, grain, torch_num_threads());
}

}  // namespace fp::mirrored
