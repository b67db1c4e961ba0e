#include "support/handle_listener.h"

#include <string>

namespace fp_test {
namespace {

void describe(std::string& text, const char* kind, std::int64_t before, std::int64_t after) {
  if (before == after) return;
  text += "\n  " + std::to_string(after - before) + " " + kind + " handle(s) (" +
          std::to_string(before) + " live before the test, " + std::to_string(after) + " after)";
}

}  // namespace

void HandleLeakListener::OnTestStart(const ::testing::TestInfo& /*test*/) {
  at_start_ = fp::abi::testing::live_handles();
}

void HandleLeakListener::OnTestEnd(const ::testing::TestInfo& /*test*/) {
  const auto now = fp::abi::testing::live_handles();
  if (now == at_start_) return;
  std::string text = "the test left libtorch handles alive:";
  describe(text, "tensor", at_start_.tensors, now.tensors);
  describe(text, "generator", at_start_.generators, now.generators);
  describe(text, "list", at_start_.lists, now.lists);
  ADD_FAILURE() << text;
}

}  // namespace fp_test
