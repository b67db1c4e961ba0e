// One forward of an AOTInductor package through flash_powder (run_aoti.sh
// compares it with Python's loader, eager PyTorch and torch.compile).
//
//     bench_aoti_forward PACKAGE.pt2 INPUT.safetensors [benchmark flags]
//
// INPUT.safetensors holds `input`, the batch every side runs on.
#include <benchmark/benchmark.h>

#include <flash_powder/aoti/aoti.h>
#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>

#include <iostream>

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (argc != 3) {
    std::cerr << "usage: bench_aoti_forward PACKAGE.pt2 INPUT.safetensors [benchmark flags]\n";
    return 2;
  }
  const auto model = fp::aoti::Package::open(argv[1]);
  const auto inputs = fp::safetensors::load(argv[2]);
  const fp::Tensor& input = inputs.at("input");
  benchmark::RegisterBenchmark("fp_aoti_forward", [&](benchmark::State& state) {
    for (auto _ : state)
      benchmark::DoNotOptimize(model(input));
  });
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
