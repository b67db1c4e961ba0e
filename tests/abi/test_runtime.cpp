// Which torch runs, which one built us, and what the binaries target.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>
#include <sys/resource.h>

#include <cstdint>

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#include "support/expect_error.h"
#include "support/truth.h"

namespace {

using fp_test::truth;

TEST(Runtime, TorchVersionIsTheLoadedLibtorch) {
  /*
  #|PYTHON
  version = torch.__version__.split("+")[0]
  */
  EXPECT_EQ(fp::torch_version().str(), truth<std::string>("version"));
}

TEST(Runtime, BuildAndTargetVersions) {
  EXPECT_GE(fp::torch_build_version(), (fp::TorchVersion{2, 13, 0}));
  EXPECT_EQ(fp::torch_target_version(), (fp::TorchVersion{2, 11, 0}));
  EXPECT_LE(fp::torch_target_version(), fp::torch_version());
  EXPECT_EQ(fp::TorchVersion({2, 9, 1}).str(), "2.9.1");
}

TEST(Runtime, CudaAvailabilityMatchesPython) {
  EXPECT_EQ(fp::cuda_is_available(), truth<bool>("torch.cuda.is_available()"));
}

TEST(Runtime, CpuCapabilityIsTheOneLibtorchDispatchesTo) {
  // The same ATEN_CPU_CAPABILITY reaches both sides; each CPU lane of
  // scripts/test checks another value.
  EXPECT_EQ(fp::torch_cpu_capability(),
            truth<std::string>("torch.backends.cpu.get_cpu_capability()"));
}

TEST(Runtime, SetNumThreadsSetsTheCountLibtorchUses) {
  const int before = fp::get_num_threads();
  EXPECT_EQ(before, fp::torch_num_threads());
  fp::set_num_threads(1);
  EXPECT_EQ(fp::get_num_threads(), 1);
  fp::set_num_threads(3);
  EXPECT_EQ(fp::get_num_threads(), 3);
  // A parallel op still runs (and sums right) with the new count.
  const fp::Tensor ones = fp::ones({1 << 20});
  EXPECT_EQ(ones.sum().item<float>(), static_cast<float>(1 << 20));
  fp::set_num_threads(before);
  EXPECT_EQ(fp::get_num_threads(), before);
}

long minor_page_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

TEST(Runtime, KeepFreedMemoryLetsTheNextTensorReuseItWithoutPageFaults) {
  // A sanitizer's malloc refuses mallopt, valgrind's accepts and ignores it:
  // those lanes have nothing to check.
  if (!fp::keep_freed_memory() || RUNNING_ON_VALGRIND) {
    GTEST_SKIP() << "this process's malloc is not glibc's";
  }
  // 24 MiB: above glibc's starting mmap threshold, which would map these
  // pages afresh for the second tensor and fault each of its 6,144 pages.
  // The first is a little larger: an aligned allocation needs some room
  // beyond its size, so a freed block of exactly its size would not do.
  constexpr std::int64_t floats = std::int64_t{6} << 20;
  { const fp::Tensor first = fp::ones({floats + (std::int64_t{1} << 16)}); }
  const long before = minor_page_faults();
  const fp::Tensor second = fp::ones({floats});
  EXPECT_LT(minor_page_faults() - before, 256);
  EXPECT_EQ(second.sum().item<float>(), static_cast<float>(floats));
}

TEST(RuntimeErrors, SetNumThreadsNeedsAPositiveCount) {
  const int before = fp::get_num_threads();
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::set_num_threads: Expected positive number of threads, got 0",
                  fp::set_num_threads(0));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::set_num_threads: Expected positive number of threads, got -2",
                  fp::set_num_threads(-2));
  EXPECT_EQ(fp::get_num_threads(), before);
}

}  // namespace
