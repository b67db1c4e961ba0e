// The libtorch side of the torchvision models that have no torch::nn port in
// vision_forward_libtorch.cpp (convnext_tiny, efficientnet_b0, vit_b_16,
// swin_t, deeplabv3_resnet50, lraspp_mobilenet_v3_large): what a libtorch
// user does with them, since torchvision has no C++ models. Python scripts
// the model with the benchmark's weights (vision_forward.py script:
// torch.jit.script, eval mode), C++ loads it with torch::jit::load and
// times its forward. For bench/run_vision.sh (side `libtorch_ts`); built
// with -DFP_BUILD_BENCH_LIBTORCH=ON only.
//
//   bench_vision_forward_torchscript MODEL SCRIPTED INPUT OUTPUT RESULT [--warmup N]
//                                    [--repetitions N] [--channels-last]
//
// See vision_timing.h for the arguments; SCRIPTED is the TorchScript file in
// place of the weights (it holds them). A segmentation model returns
// {"out": ...}; "out" is the output. The forward runs under
// c10::InferenceMode, as Python's runs under torch.inference_mode();
// FP_BENCH_LIBTORCH_MODE=no_grad or grad (libtorch_mode.h) without it.
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/script.h>
#include <torch/torch.h>

#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "libtorch_mode.h"
#include "libtorch_safetensors.h"
#include "vision_timing.h"

namespace {

/// The tensor the benchmark times and compares: the forward's result, or a
/// segmentation model's "out".
torch::Tensor output_tensor(const c10::IValue& result) {
  if (result.isTensor()) return result.toTensor();
  if (result.isGenericDict()) return result.toGenericDict().at("out").toTensor();
  throw std::runtime_error("the scripted forward returns neither a tensor nor a dict");
}

int run(const vision_bench::Arguments& arguments) {
  const auto load_start = std::chrono::steady_clock::now();
  torch::jit::Module module = torch::jit::load(arguments.weights);
  module.eval();
  torch::Tensor input = libtorch_bench::read_safetensors(arguments.input).at("input");
  if (arguments.channels_last) {
    // The module's weights are in its file's format; converting them would
    // need Python's model.to(memory_format=...) before scripting.
    throw std::invalid_argument("--channels-last: not for the TorchScript side");
  }
  const double load_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - load_start)
          .count();

  const libtorch_bench::ChosenGradMode grad_mode;
  const std::vector<c10::IValue> inputs{input};
  torch::Tensor output;
  auto forward = [&] { output = output_tensor(module.forward(inputs)); };
  // The executor is left at libtorch's defaults (the profiling executor).
  // Its first getNumProfiledRuns() calls (1 by default) run an instrumented
  // graph that records shapes and types; the next one builds the
  // specialised, optimised graph; only the calls after that run what a
  // serving program runs. Those calls come before the requested warm-up, so
  // that --warmup means what it means on the other sides (first-call work of
  // the kernels, the allocator's caches) and the timed calls never include
  // the executor's compilation.
  const auto specialising_calls = torch::jit::getNumProfiledRuns().load() + 1;
  for (std::size_t i = 0; i < specialising_calls; ++i)
    forward();
  const vision_bench::Times times = vision_bench::time_forward(forward, arguments);
  libtorch_bench::write_safetensors(arguments.output, "output", output);
  vision_bench::write_result(arguments, "libtorch_ts", at::get_num_threads(),
                             input.size(vision_bench::batch_dim(arguments.model)), load_ms, times);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return vision_bench::run_main(
      argc, argv, [](const vision_bench::Arguments& arguments) { return run(arguments); });
}
