#include "flash_powder/abi/runtime.h"

#include <dlfcn.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <cstdlib>
#include <string>
#include <string_view>

#include "flash_powder/base/error.h"
#include "torch_c.h"

namespace fp {
namespace {

TorchVersion version_from_abi(std::uint64_t abi_version) {
  // TORCH_ABI_VERSION packs major << 56 | minor << 48 | patch << 40.
  return {static_cast<int>((abi_version >> 56) & 0xff),
          static_cast<int>((abi_version >> 48) & 0xff),
          static_cast<int>((abi_version >> 40) & 0xff)};
}

}  // namespace

std::string TorchVersion::str() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

bool torch_leaks_string_arguments() {
  static const bool leaks = torch_version() < TorchVersion{2, 14, 0};
  return leaks;
}

TorchVersion torch_version() {
  return version_from_abi(aoti_torch_abi_version());
}

TorchVersion torch_build_version() {
  return version_from_abi(TORCH_ABI_VERSION);
}

TorchVersion torch_target_version() {
  return version_from_abi(TORCH_TARGET_VERSION);
}

namespace {

// libtorch's compute_cpu_capability (aten/src/ATen/native/DispatchStub.cpp):
// the environment variable wins when it names a capability (it is not checked
// against the CPU); otherwise AVX512 needs AVX512VL/BW/DQ and FMA, AVX2 needs
// AVX2 and FMA.
std::string_view compute_cpu_capability() {
#if defined(__x86_64__)
  if (const char* forced = std::getenv("ATEN_CPU_CAPABILITY")) {
    const std::string_view name = forced;
    if (name == "avx512") return "AVX512";
    if (name == "avx2") return "AVX2";
    if (name == "default") return "DEFAULT";
  }
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("fma")) {
    return "AVX512";
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "AVX2";
#endif
  return "DEFAULT";
}

}  // namespace

std::string_view torch_cpu_capability() {
  static const std::string_view capability = compute_cpu_capability();  // read once, like libtorch
  return capability;
}

int torch_num_threads() {
  std::uint32_t threads = 1;
  abi::check(torch_get_num_threads(&threads), "torch_get_num_threads");
  return static_cast<int>(threads);
}

void set_num_threads(int threads) {
  if (threads <= 0) {
    throw Error(
        ErrorCode::BadArgument,
        "fp::set_num_threads: Expected positive number of threads, got " + std::to_string(threads));
  }
  // libtorch initialises each thread's OpenMP count on its first parallel
  // call (at::internal::lazy_init_num_threads), which would overwrite ours:
  // have it do that first.
  torch_num_threads();
  using SetCount = void (*)(int);
  using SetCountLocal = int (*)(int);
  static const auto omp_set_num_threads =
      reinterpret_cast<SetCount>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  // MKL's C interface by value; its lower-case names are the Fortran entry
  // points, which take pointers.
  static const auto mkl_set_num_threads_local =
      reinterpret_cast<SetCountLocal>(dlsym(RTLD_DEFAULT, "MKL_Set_Num_Threads_Local"));
  static const auto mkl_set_dynamic =
      reinterpret_cast<SetCount>(dlsym(RTLD_DEFAULT, "MKL_Set_Dynamic"));
  if (omp_set_num_threads == nullptr) {
    throw Error(
        ErrorCode::UnsupportedByTorch,
        "fp::set_num_threads: the loaded libtorch has no OpenMP runtime (omp_set_num_threads); "
        "set OMP_NUM_THREADS before the program starts instead");
  }
  omp_set_num_threads(threads);
  // What at::set_num_threads does for MKL, where libtorch has it (x86-64).
  if (mkl_set_num_threads_local != nullptr) mkl_set_num_threads_local(threads);
  if (mkl_set_dynamic != nullptr) mkl_set_dynamic(0);
}

bool keep_freed_memory() {
#if defined(__GLIBC__)
  // The largest threshold glibc's own adjustment reaches on 64-bit systems
  // (DEFAULT_MMAP_THRESHOLD_MAX); setting it also stops that adjustment.
  constexpr int mmap_threshold = 32 * 1024 * 1024;
  // mallopt takes an int; this is the largest power of two it holds.
  constexpr int trim_threshold = 1 << 30;
  return mallopt(M_MMAP_THRESHOLD, mmap_threshold) == 1 &&
         mallopt(M_TRIM_THRESHOLD, trim_threshold) == 1;
#else
  return false;
#endif
}

bool cuda_is_available() {
  // libtorch_cuda registers its kernels when loaded; without it (or without a
  // GPU) an empty CUDA tensor cannot be made. That probe needs no CUDA symbol.
  static const bool available = [] {
    if (dlsym(RTLD_DEFAULT, "aoti_torch_create_cuda_guard") == nullptr) return false;
    const std::int64_t size = 1;
    const std::int64_t stride = 1;
    AtenTensorHandle probe = nullptr;
    const auto status = aoti_torch_empty_strided(1, &size, &stride, aoti_torch_dtype_float32(),
                                                 aoti_torch_device_type_cuda(), 0, &probe);
    if (status != AOTI_TORCH_SUCCESS) return false;
    aoti_torch_delete_tensor_object(probe);
    return true;
  }();
  return available;
}

}  // namespace fp
