#include "support/handle_listener.h"

#include <string>

namespace fp_test {
namespace {

// Handles kept for the process by the running test (process_lifetime).
fp::abi::testing::LiveHandles excused;

void describe(std::string& text, const char* kind, std::int64_t before, std::int64_t after) {
  if (before == after) return;
  text += "\n  " + std::to_string(after - before) + " " + kind + " handle(s) (" +
          std::to_string(before) + " live before the test, " + std::to_string(after) + " after)";
}

}  // namespace

void excuse_handles(const fp::abi::testing::LiveHandles& kept) {
  excused.tensors += kept.tensors;
  excused.generators += kept.generators;
  excused.lists += kept.lists;
}

void HandleLeakListener::OnTestStart(const ::testing::TestInfo& /*test*/) {
  excused = {};
  at_start_ = fp::abi::testing::live_handles();
}

void HandleLeakListener::OnTestEnd(const ::testing::TestInfo& /*test*/) {
  auto now = fp::abi::testing::live_handles();
  now.tensors -= excused.tensors;
  now.generators -= excused.generators;
  now.lists -= excused.lists;
  if (now == at_start_) return;
  std::string text = "the test left libtorch handles alive:";
  describe(text, "tensor", at_start_.tensors, now.tensors);
  describe(text, "generator", at_start_.generators, now.generators);
  describe(text, "list", at_start_.lists, now.lists);
  ADD_FAILURE() << text;
}

}  // namespace fp_test
