// Which torch this process runs on, as opposed to the one it was built with.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

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

/// The CPU kernels libtorch dispatches to in this process, named as
/// `torch.backends.cpu.get_cpu_capability()` names them: "AVX512", "AVX2" or
/// "DEFAULT" on x86-64 ("DEFAULT" elsewhere). It mirrors libtorch's choice:
/// `ATEN_CPU_CAPABILITY` (avx512, avx2, default) when set, else the best the
/// CPU supports. flash_powder reproduces a few kernels' roundings (arange,
/// randn's normal_fill), which differ between these.
std::string_view torch_cpu_capability();

/// True when libtorch can run CUDA kernels here: it was built with CUDA and a
/// device is present. Never throws; tests use it to skip CUDA cases cleanly.
bool cuda_is_available();

}  // namespace fp
