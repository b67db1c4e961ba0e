// Which torch this process runs on, as opposed to the one it was built with.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

namespace fp {

/// A torch release number, e.g. 2.13.0.
struct TorchVersion {
  /// The major release number (2 in 2.13.0).
  int major = 0;
  /// The minor release number (13 in 2.13.0).
  int minor = 0;
  /// The patch release number (0 in 2.13.0).
  int patch = 0;

  /// "2.13.0"
  std::string str() const;
  // clang-tidy 14 flags the `0` of the comparison category that a defaulted
  // <=> synthesises; there is no pointer.
  // NOLINTNEXTLINE(modernize-use-nullptr)
  /// Ordered by major, minor, patch.
  friend constexpr auto operator<=>(const TorchVersion&, const TorchVersion&) = default;
};

/// The libtorch loaded into this process (read from `aoti_torch_abi_version()`).
TorchVersion torch_version();

/// Whether the loaded libtorch leaks every `str` argument passed through
/// torch_call_dispatcher (one std::string, 48 bytes of heap, per argument and
/// call): torch 2.10 to 2.13; fixed in 2.14. flash_powder then sends the ops
/// its layers call with a string another way (docs/architecture.md, "Ops
/// called with a `str` argument").
bool torch_leaks_string_arguments();

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

/// Makes the C library's malloc keep the memory freed tensors leave for the
/// next ones, instead of handing it back to the system: blocks up to 32 MiB
/// come from the heap and the heap is not trimmed. From its second forward on,
/// a model's activations then reuse memory without page faults.
///
/// Why it matters: glibc maps each block above its mmap threshold (128 KiB at
/// start) afresh and unmaps it when freed, so every forward faults its
/// activations' pages in again (vgg11 batch 1: about 10 % of a forward).
/// glibc raises the threshold by itself only once a large block is freed:
/// loaders that read weights into malloc'ed buffers (libtorch's, Python's)
/// do that by accident, flash_powder's zero-copy loading from a mapped file
/// does not. This sets what `MALLOC_MMAP_THRESHOLD_=33554432
/// MALLOC_TRIM_THRESHOLD_=1073741824` in the environment would.
///
/// Process-wide and for every allocation, so it is the program's choice: call
/// it once at start-up. The cost is memory the process keeps after a peak.
/// Returns false, changing nothing, where malloc is not glibc's (another C
/// library, or a sanitizer's allocator, which refuses mallopt).
bool keep_freed_memory();

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
