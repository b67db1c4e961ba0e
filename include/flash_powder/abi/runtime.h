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
  // clang-tidy 14 flags the `0` of the comparison category that a defaulted
  // <=> synthesises; there is no pointer.
  // NOLINTNEXTLINE(modernize-use-nullptr)
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
/// The same, under PyTorch's name.
inline int get_num_threads() {
  return torch_num_threads();
}

/// Sets the number of threads libtorch's CPU ops use, like
/// `torch.set_num_threads(threads)`: OpenMP's and MKL's thread counts.
/// Throws fp::Error unless threads > 0, or if the loaded libtorch has no
/// OpenMP runtime. https://pytorch.org/docs/stable/generated/torch.set_num_threads.html
///
/// Limit: the stable ABI offers no setter (only torch_get_num_threads), so
/// this sets the thread counts of OpenMP and MKL through their own C
/// functions, as at::set_num_threads does, but cannot store the count where
/// libtorch keeps it for threads that start using it later. The setting
/// applies to the calling thread (and the parallel work it starts); call it
/// on each thread that runs models. PyTorch's set_num_interop_threads has no
/// such route at all, and flash_powder never uses the inter-op pool (it
/// serves TorchScript's fork), so it is not offered.
void set_num_threads(int threads);

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
