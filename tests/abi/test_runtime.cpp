// Which torch runs, which one built us, and what the binaries target.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

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

}  // namespace
