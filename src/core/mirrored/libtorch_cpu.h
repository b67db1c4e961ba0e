// Mirrored libtorch: the one place where flash_powder copies libtorch's
// internals instead of calling libtorch.
//
// Why at all: everything else in flash_powder runs libtorch's own kernels
// through its stable C ABI and so gets libtorch's bits for free. Two things
// have no stable route:
//  - torch.arange: every overload of aten::arange takes start/end/step as a
//    Scalar, which the stable ABI cannot carry (torch_call_dispatcher has no
//    Scalar in 2.10-2.15, and no C shim takes arange's numbers as double), so
//    arange.cpp computes the values the way arange_cpu does;
//  - sampling with a generator: the stable ABI cannot create a
//    torch.Generator, so fp::Generator mirrors CPUGeneratorImpl and
//    random_kernels.cpp mirrors the CPU sampling kernels.
// Where libtorch does have a route (a C shim taking a double, a Tensor
// overload), flash_powder calls it; nothing may be added here then.
//
// The mirrored kernels' bits depend on how the running libtorch splits and
// rounds its work: which of its per-capability kernel builds runs, that
// build's vector width and multiply-add contraction, and how at::parallel_for
// cuts a range for the thread count. Those rules are below, each with the
// torch source it mirrors (pytorch/pytorch, identical in torch 2.11 to 2.15,
// whose installed headers hold the ATen/... files named), and the mirrored
// kernels take them from here only. They are checked bit for bit against the
// torch beside the tests in every CPU lane (default, avx2, avx512) and for
// every supported torch: tests/core/test_mirrored.cpp, at every length from 1
// to 300 and across the grain size with 1, 2 and 3 threads.
//
// The rules are x86-64's: on other CPUs fp::torch_cpu_capability() says
// "DEFAULT" and the generic build's width is used, unchecked.
#pragma once

#include <cstdint>
#include <vector>

namespace fp::mirrored {

/// One of libtorch's CPU kernel builds: each kernel file of
/// aten/src/ATen/native/cpu/ is compiled once per capability
/// (cmake/Codegen.cmake, CPU_CAPABILITY_NAMES) into at::native::DEFAULT,
/// AVX2 and AVX512 (DispatchStub.h, CPUCapability).
enum class Capability { Default, Avx2, Avx512 };

/// The capability this process's libtorch runs: fp::torch_cpu_capability()
/// ("AVX512", "AVX2", "DEFAULT"; ATEN_CPU_CAPABILITY when set, else the
/// best the CPU has), read once like libtorch reads it (DispatchStub.cpp,
/// compute_cpu_capability).
Capability running_capability();

/// The dispatch stubs whose kernels are mirrored.
enum class Stub {
  /// arange_stub (RangeFactoriesKernel.cpp): REGISTER_DISPATCH.
  Arange,
  /// normal_stub (DistributionKernels.cpp): REGISTER_NO_AVX512_DISPATCH
  /// ("normal_stub isn't being dispatched to AVX512 because it exposes
  /// flakiness in test_sgd").
  Normal,
};

/// The build whose kernel a stub runs under a capability
/// (DispatchStubImpl::choose_cpu_impl, DispatchStub.cpp): the capability's
/// own, except that under AVX512 a stub without an AVX512 kernel runs its
/// AVX2 one ("dispatch to AVX2, since the AVX512 kernel is missing"). Only
/// ALSO_REGISTER_AVX512_DISPATCH registers an AVX512 kernel: in the AVX512
/// build REGISTER_DISPATCH registers nullptr (DispatchStub.h: "REGISTER_DISPATCH
/// now dispatches an AVX512 kernel to nullptr"), and so does
/// REGISTER_NO_AVX512_DISPATCH. Neither mirrored stub has one, so both run
/// their AVX2 build under AVX512 (32-byte vectors for arange, the AVX2
/// normal_fill for randn), as torch.arange and torch.randn show bit for bit.
Capability kernel_build(Stub stub, Capability running);

/// kernel_build for the running capability.
Capability kernel_build(Stub stub);

/// sizeof(at::vec::Vectorized<T>) in bytes in a build, so that
/// Vectorized<T>::size() is vector_bytes() / sizeof(T):
///  - Avx512: 64 (ATen/cpu/vec/vec512/: Vectorized<float> holds an __m512,
///    Vectorized<Half> and <BFloat16> an __m512i of 32 elements);
///  - Avx2: 32 (ATen/cpu/vec/vec256/: __m256, __m256i);
///  - Default: the generic Vectorized<T> of ATen/cpu/vec/vec_base.h, which
///    holds VECTOR_WIDTH / sizeof(T) elements, VECTOR_WIDTH being 32 unless
///    CPU_CAPABILITY_AVX512 (64) or aarch64 without SVE (16).
std::int64_t vector_bytes(Capability build);

/// Vectorized<T>::size() in a build.
template <class T>
std::int64_t vector_lanes(Capability build) {
  return vector_bytes(build) / static_cast<std::int64_t>(sizeof(T));
}

/// Whether a build fuses `a * b + c` into one rounding: the
/// AVX2 and AVX512 builds are compiled with -mfma (cmake/Codegen.cmake,
/// CPU_CAPABILITY_FLAGS "-mavx2 -mfma ..." and "-mavx512f ... -mfma"), and
/// GCC contracts a multiply whose result only feeds an add (its default
/// -ffp-contract=fast); the DEFAULT build has no FMA instructions.
bool fuses_multiply_add(Capability build);

/// at::internal::GRAIN_SIZE (ATen/TensorIterator.h): the work at::parallel_for
/// does not split, and the smallest piece it splits into.
inline constexpr std::int64_t kGrainSize = 32768;

/// One call of at::parallel_for's function: [begin, end).
struct Chunk {
  std::int64_t begin = 0;
  std::int64_t end = 0;
};

/// The chunks at::parallel_for(0, size, grain, f) calls f with when the
/// calling thread runs `threads` threads (ATen/Parallel-inl.h, parallel_for:
/// one chunk unless size > grain and threads > 1; ATen/ParallelOpenMP.h,
/// invoke_parallel: min(threads, ceil(size / grain)) tasks of
/// ceil(size / tasks) elements, the last one shorter, none empty).
/// Not mirrored: parallel_for also runs one chunk inside an OpenMP parallel
/// region (at::in_parallel_region()), so a mirrored kernel called from a
/// program's own `omp parallel` region may split where torch would not.
std::vector<Chunk> parallel_chunks(std::int64_t size, std::int64_t grain, std::int64_t threads);

/// parallel_chunks for libtorch's thread count on this thread
/// (fp::torch_num_threads(), at::get_num_threads(): what fp::set_num_threads
/// and torch.set_num_threads set).
std::vector<Chunk> parallel_chunks(std::int64_t size, std::int64_t grain = kGrainSize);

/// Where, in a chunk of a contiguous 1-D TensorIterator loop, the vectorised
/// part ends: vectorized_loop (ATen/native/cpu/Loops.h) handles whole pairs
/// of vectors of `lanes` elements from the chunk's start, then the rest one
/// element at a time (basic_loop).
inline std::int64_t vectorised_end(Chunk chunk, std::int64_t lanes) {
  return chunk.begin + (chunk.end - chunk.begin) / (2 * lanes) * (2 * lanes);
}

}  // namespace fp::mirrored
