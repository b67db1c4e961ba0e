// Which torch runs, which one built us, and what the binaries target.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

namespace {

TEST(Runtime, TorchVersionIsTheLoadedLibtorch) {
  /*
  #|PYTHON
  version = torch.__version__.split("+")[0]
  */
  EXPECT_EQ(fp::torch_version().str(), "2.13.0");  // #PYTHON version
}

TEST(Runtime, BuildAndTargetVersions) {
  EXPECT_GE(fp::torch_build_version(), (fp::TorchVersion{2, 13, 0}));
  EXPECT_EQ(fp::torch_target_version(), (fp::TorchVersion{2, 11, 0}));
  EXPECT_LT(fp::torch_target_version(), fp::torch_version());
  EXPECT_EQ(fp::TorchVersion({2, 9, 1}).str(), "2.9.1");
}

TEST(Runtime, CudaAvailabilityMatchesPython) {
  /*
  #|PYTHON
  available = torch.cuda.is_available()
  */
  EXPECT_EQ(fp::cuda_is_available(), false);  // #PYTHON available
}

}  // namespace
