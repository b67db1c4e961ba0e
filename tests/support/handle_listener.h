// A GoogleTest listener that fails any test that ends holding more libtorch
// handles than it started with, naming the kinds and counts, so a leak is
// found in the test that made it without valgrind. Counts exist only in
// builds with FP_HANDLE_COUNT (debug, borrow-checking and sanitizer builds);
// elsewhere the listener checks nothing.
#pragma once

#include <gtest/gtest.h>

#include "abi/testing.h"

namespace fp_test {

/// Adds `kept` to the handles the running test may leave alive (see
/// process_lifetime).
void excuse_handles(const fp::abi::testing::LiveHandles& kept);

/// Runs `make` and returns what it returns, not counting the handles it
/// leaves alive against the running test: for data a test file loads once
/// and keeps for the whole process (a static map of expected tensors), which
/// would otherwise count as a leak of whichever test loaded it first.
template <class Make>
auto process_lifetime(Make&& make) {
  const auto before = fp::abi::testing::live_handles();
  auto result = make();
  const auto after = fp::abi::testing::live_handles();
  excuse_handles({after.tensors - before.tensors, after.generators - before.generators,
                  after.lists - before.lists});
  return result;
}

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
