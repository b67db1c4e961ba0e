// The grad mode the libtorch sides of run_vision.sh run their forward in,
// chosen by FP_BENCH_LIBTORCH_MODE: `inference` (the default,
// c10::InferenceMode, as Python's torch.inference_mode()), `no_grad`
// (torch::NoGradGuard) or `grad` (neither). The other two measure what
// InferenceMode is worth; flash_powder has neither, the stable C ABI offers
// no inference mode.
#pragma once

#include <torch/torch.h>

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string_view>

namespace libtorch_bench {

/// Holds FP_BENCH_LIBTORCH_MODE's guard for its lifetime.
class ChosenGradMode {
 public:
  ChosenGradMode() {
    const char* mode = std::getenv("FP_BENCH_LIBTORCH_MODE");
    const std::string_view chosen = mode == nullptr ? "inference" : mode;
    if (chosen == "inference") {
      inference_.emplace();
    } else if (chosen == "no_grad") {
      no_grad_.emplace();
    } else if (chosen != "grad") {
      throw std::invalid_argument("FP_BENCH_LIBTORCH_MODE: inference, no_grad or grad");
    }
  }

 private:
  std::optional<c10::InferenceMode> inference_;
  std::optional<torch::NoGradGuard> no_grad_;
};

}  // namespace libtorch_bench
