// Which torch this process runs on, as opposed to the one it was built with.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

namespace fp {

/// A torch release number, e.g. 2.13.0.
struct TorchVersion {
  int major = 0;
  int minor = 0;
  int patch = 0;

  /// "2.13.0"
  std::string str() const;
  friend constexpr auto operator<=>(const TorchVersion&, const TorchVersion&) = default;
};

/// The libtorch loaded into this process (read from `aoti_torch_abi_version()`).
TorchVersion torch_version();

/// The torch whose headers flash_powder was compiled with.
TorchVersion torch_build_version();

/// The oldest torch the binaries load on: the stable ABI they target.
TorchVersion torch_target_version();

/// The number of threads libtorch's intra-op parallelism uses
/// (`torch.get_num_threads()`).
int torch_num_threads();

/// True when libtorch can run CUDA kernels here: it was built with CUDA and a
/// device is present. Never throws; tests use it to skip CUDA cases cleanly.
bool cuda_is_available();

}  // namespace fp
