// Which torch runs, which one built us, and what the binaries target.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

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

TEST(RuntimeErrors, SetNumThreadsNeedsAPositiveCount) {
  const int before = fp::get_num_threads();
  EXPECT_FP_ERROR("fp::set_num_threads: Expected positive number of threads, got 0",
                  fp::set_num_threads(0));
  EXPECT_FP_ERROR("fp::set_num_threads: Expected positive number of threads, got -2",
                  fp::set_num_threads(-2));
  EXPECT_EQ(fp::get_num_threads(), before);
}

}  // namespace
