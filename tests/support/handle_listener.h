// A GoogleTest listener that fails any test that ends holding more libtorch
// handles than it started with, naming the kinds and counts, so a leak is
// found in the test that made it without valgrind. Counts exist only in
// builds with FP_HANDLE_COUNT (debug, borrow-checking and sanitizer builds);
// elsewhere the listener checks nothing.
#pragma once

#include <gtest/gtest.h>

#include "flash_powder/abi/testing.h"

namespace fp_test {

class HandleLeakListener : public ::testing::EmptyTestEventListener {
 public:
  void OnTestStart(const ::testing::TestInfo& test) override;
  // GoogleTest calls OnTestEnd on the listeners in reverse order, so this runs
  // before the printer and the XML report: the failure belongs to the test.
  void OnTestEnd(const ::testing::TestInfo& test) override;

 private:
  fp::abi::testing::LiveHandles at_start_;
};

}  // namespace fp_test
