// Not public API (flash_powder.h does not include it): how libtorch's CPU
// kernels split their work, for the few places flash_powder (core's arange,
// ops' integer add) must reproduce a kernel's rounding bit for bit.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "flash_powder/abi/runtime.h"

namespace fp {

/// at::internal::GRAIN_SIZE: below it at::parallel_for runs one chunk.
constexpr std::int64_t kTorchGrainSize = 32768;
/// The width of at::vec::Vectorized<T> in the x86 kernels libtorch dispatches
/// to by default (AVX2 and the generic build alike).
constexpr std::int64_t kTorchVectorBytes = 32;

/// The [begin, end) chunks at::parallel_for hands to its threads for a range
/// of `size` elements (OpenMP backend).
inline std::vector<std::pair<std::int64_t, std::int64_t>> torch_parallel_chunks(std::int64_t size) {
  const std::int64_t threads = torch_num_threads();
  if (size < kTorchGrainSize || threads <= 1) return {{0, size}};
  const std::int64_t used =
      std::min<std::int64_t>(threads, (size + kTorchGrainSize - 1) / kTorchGrainSize);
  const std::int64_t chunk = (size + used - 1) / used;
  std::vector<std::pair<std::int64_t, std::int64_t>> chunks;
  for (std::int64_t begin = 0; begin < size; begin += chunk) {
    chunks.emplace_back(begin, std::min(size, begin + chunk));
  }
  return chunks;
}

/// Where, in a chunk [begin, end) of a contiguous unary or binary loop, the
/// vectorised part ends: cpu_kernel_vec handles pairs of vectors, the rest
/// element by element.
inline std::int64_t torch_vectorised_end(std::int64_t begin, std::int64_t end,
                                         std::int64_t element_bytes) {
  const std::int64_t lanes = kTorchVectorBytes / element_bytes;
  return begin + (end - begin) / (2 * lanes) * (2 * lanes);
}

}  // namespace fp
