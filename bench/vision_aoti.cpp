// The forward of a vision model exported as an AOTInductor package, run
// through flash_powder's fp::aoti (run_vision.sh --aoti compares it with
// Python's torch._inductor.aoti_load_package on the same package, and with the
// model's other sides).
//
//   bench_vision_aoti MODEL PACKAGE INPUT OUTPUT RESULT [--warmup N] [--repetitions N]
//
// PACKAGE is what `vision_forward.py export` wrote for MODEL and INPUT's
// shape; the other arguments are vision_timing.h's. The package takes
// contiguous input only (it was exported so), hence no --channels-last.
#include <chrono>
#include <vector>

#include <flash_powder/aoti/aoti.h>
#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>

#include "vision_timing.h"

namespace {

int run(const vision_bench::Arguments& arguments) {
  if (arguments.channels_last)
    throw fp::Error(fp::ErrorCode::BadArgument,
                    "the AOTInductor package is exported for contiguous input only");
  const auto load_start = std::chrono::steady_clock::now();
  const fp::aoti::Package model = fp::aoti::Package::open(arguments.weights);
  const fp::Tensor input = fp::safetensors::load(arguments.input).at("input");
  const double load_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - load_start)
          .count();

  std::vector<fp::Tensor> outputs;
  const vision_bench::Times times =
      vision_bench::time_forward([&] { outputs = model(input); }, arguments);
  if (outputs.size() != 1)
    throw fp::Error(fp::ErrorCode::BadArgument, "the package returned " +
                                                    std::to_string(outputs.size()) +
                                                    " outputs; the vision models return one");
  fp::safetensors::save({{"output", outputs.front().contiguous()}}, arguments.output);
  vision_bench::write_result(arguments, "fp_aoti", fp::get_num_threads(),
                             static_cast<long long>(input.size(0)), load_ms, times);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return vision_bench::run_main(
      argc, argv, [](const vision_bench::Arguments& arguments) { return run(arguments); });
}
