// The main() of every GoogleTest program of the suite: GoogleTest's own, plus
// the check that no test leaves a libtorch handle alive (handle_listener.h).
#include <gtest/gtest.h>

#include "abi/testing.h"
#include "support/handle_listener.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if constexpr (fp::abi::testing::counts_handles) {
    // GoogleTest owns and deletes the listeners it is given.
    ::testing::UnitTest::GetInstance()->listeners().Append(new fp_test::HandleLeakListener);
  }
  return RUN_ALL_TESTS();
}
