// The live-handle count (abi/handle_count.h) and the check every test program
// runs after each test (tests/support/handle_listener.h).
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>
#include "abi/testing.h"

#include <optional>

#include "support/handle_listener.h"

namespace {

using fp::abi::TensorHandle;
using fp::abi::testing::live_handles;

TensorHandle counted_2x3() {
  const std::vector<std::int64_t> sizes{2, 3};
  const std::vector<std::int64_t> strides{3, 1};
  return fp::abi::empty_strided(sizes, strides, fp::DType::F32, fp::Device::cpu());
}

void skip_unless_counted() {
  if (!fp::abi::testing::counts_handles) GTEST_SKIP() << "this build does not count handles";
}

TEST(HandleCount, OwnersCountTheirHandlesAndMovesDoNot) {
  skip_unless_counted();
  if (testing::Test::IsSkipped()) return;
  const auto before = live_handles().tensors;
  {
    TensorHandle a = counted_2x3();
    EXPECT_EQ(live_handles().tensors, before + 1);
    TensorHandle b = std::move(a);
    EXPECT_EQ(live_handles().tensors, before + 1);
    TensorHandle c = b.share();
    EXPECT_EQ(live_handles().tensors, before + 2);
    // Released, the handle is the caller's: it leaves the count until an
    // owner takes it back.
    fp::abi::RawTensor raw = c.release();
    EXPECT_EQ(live_handles().tensors, before + 1);
    TensorHandle again(raw);
    EXPECT_EQ(live_handles().tensors, before + 2);
    b = std::move(again);  // frees b's handle
    EXPECT_EQ(live_handles().tensors, before + 1);
  }
  EXPECT_EQ(live_handles().tensors, before);
}

TEST(HandleCount, TensorsViewsAndOpsLeaveNothing) {
  skip_unless_counted();
  if (testing::Test::IsSkipped()) return;
  const auto before = live_handles();
  {
    const fp::Tensor t = fp::zeros({2, 3});
    const fp::Tensor both = fp::cat({t, t.narrow(0, 0, 1)}, 0);
    EXPECT_EQ(both.sizes()[0], 3);
    EXPECT_GT(live_handles().tensors, before.tensors);
  }
  EXPECT_EQ(live_handles(), before);
}

// The listener of every test program, driven by hand: a handle kept past
// the end of a test fails it, naming the kind and the count.
std::optional<TensorHandle> kept;
fp_test::HandleLeakListener listener;

TEST(HandleCount, ListenerFailsATestThatKeepsAHandle) {
  skip_unless_counted();
  if (testing::Test::IsSkipped()) return;
  const auto& test = *testing::UnitTest::GetInstance()->current_test_info();
  EXPECT_NONFATAL_FAILURE(
      {
        listener.OnTestStart(test);
        kept = counted_2x3();
        listener.OnTestEnd(test);
      },
      "1 tensor handle(s)");
  kept.reset();
  // Nothing kept: no failure.
  listener.OnTestStart(test);
  listener.OnTestEnd(test);
}

}  // namespace
