// The cases of ops_overhead.cpp with libtorch's C++ API (<torch/torch.h>),
// for bench/run_ops_overhead.sh. Only this benchmark uses libtorch's C++ API;
// flash_powder's libraries never do. Built with -DFP_BUILD_BENCH_LIBTORCH=ON.
//
//   bench_ops_overhead_libtorch [CHECKPOINT.safetensors] [Google Benchmark flags]
//
// Each case does what the case of the same name in ops_overhead.cpp does, the
// way a libtorch user would write it.
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <ATen/core/dispatch/Dispatcher.h>

#include "libtorch_safetensors.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

std::string checkpoint_path;

torch::Tensor tiny(std::uint64_t seed, at::IntArrayRef shape = {4}) {
  torch::manual_seed(seed);
  return torch::randn(shape);
}

// --- overhead-dominated: tiny tensors ------------------------------------------

void add(benchmark::State& state) {
  const torch::Tensor a = tiny(1);
  const torch::Tensor b = tiny(2);
  for (auto _ : state) {
    torch::Tensor c = a + b;
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
}

void mul(benchmark::State& state) {
  const torch::Tensor a = tiny(1);
  const torch::Tensor b = tiny(2);
  for (auto _ : state) {
    torch::Tensor c = a * b;
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
}

void mul_typed(benchmark::State& state) {
  const torch::Tensor a = tiny(1);
  const torch::Tensor b = tiny(2);
  for (auto _ : state) {
    torch::Tensor c = at::mul(a, b);
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
}

/// By name, boxed: what torch_call_dispatcher does inside (find the op, call it
/// with a stack of IValues).
void mul_by_name(benchmark::State& state) {
  const torch::Tensor a = tiny(1);
  const torch::Tensor b = tiny(2);
  for (auto _ : state) {
    const c10::OperatorHandle op =
        c10::Dispatcher::singleton().findSchemaOrThrow("aten::mul", "Tensor");
    torch::jit::Stack stack{a, b};
    op.callBoxed(&stack);
    benchmark::DoNotOptimize(stack.data());
  }
}

/// libtorch passes the number as a Scalar.
void mul_number(benchmark::State& state) {
  const torch::Tensor a = tiny(1);
  for (auto _ : state) {
    torch::Tensor c = a * 2.5;
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
}

void sum(benchmark::State& state) {
  const torch::Tensor a = tiny(1);
  for (auto _ : state) {
    torch::Tensor c = a.sum();
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
}

void index_view(benchmark::State& state) {
  const torch::Tensor m = tiny(1, {2, 2});
  for (auto _ : state) {
    torch::Tensor row = m[0];
    benchmark::DoNotOptimize(row.unsafeGetTensorImpl());
  }
}

void transpose(benchmark::State& state) {
  const torch::Tensor m = tiny(1, {2, 2});
  for (auto _ : state) {
    torch::Tensor t = m.transpose(0, 1);
    benchmark::DoNotOptimize(t.unsafeGetTensorImpl());
  }
}

/// Another reference to the same tensor: a refcount increment.
void shallow_copy(benchmark::State& state) {
  const torch::Tensor a = tiny(1);
  for (auto _ : state) {
    torch::Tensor v = a;
    benchmark::DoNotOptimize(v.unsafeGetTensorImpl());
  }
}

/// What fp::Tensor's copy constructor does: a lazy (copy-on-write) clone.
void copy(benchmark::State& state) {
  const torch::Tensor a = tiny(1);
  for (auto _ : state) {
    torch::Tensor c = at::_lazy_clone(a);
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
}

void clone(benchmark::State& state) {
  const torch::Tensor a = tiny(1);
  for (auto _ : state) {
    torch::Tensor c = a.clone();
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
}

void item(benchmark::State& state) {
  const torch::Tensor s = torch::tensor(2.5f);
  for (auto _ : state) {
    benchmark::DoNotOptimize(s.item<float>());
  }
}

void sizes(benchmark::State& state) {
  const torch::Tensor a = tiny(1);
  for (auto _ : state) {
    benchmark::DoNotOptimize(a.sizes()[0]);
  }
}

// --- the cases of the seed's post-processing ------------------------------------

void sub(benchmark::State& state) {
  const torch::Tensor a = tiny(1);
  const torch::Tensor b = tiny(2);
  for (auto _ : state) {
    torch::Tensor c = a - b;
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
}

void div(benchmark::State& state) {
  const torch::Tensor a = tiny(1);
  const torch::Tensor b = tiny(2);
  for (auto _ : state) {
    torch::Tensor c = a / b;
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
}

void relu(benchmark::State& state) {
  const torch::Tensor a = tiny(1);
  for (auto _ : state) {
    torch::Tensor c = at::relu(a);
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
}

void exp(benchmark::State& state) {
  const torch::Tensor a = tiny(1);
  for (auto _ : state) {
    torch::Tensor c = a.exp();
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
}

void argmax(benchmark::State& state) {
  const torch::Tensor a = tiny(1);
  for (auto _ : state) {
    torch::Tensor c = a.argmax();
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
}

void masked_fill(benchmark::State& state) {
  const torch::Tensor a = tiny(1);
  const torch::Tensor mask = a > 0;
  for (auto _ : state) {
    torch::Tensor c = a.masked_fill(mask, 0.5);
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
}

void where(benchmark::State& state) {
  const torch::Tensor a = tiny(1);
  const torch::Tensor b = tiny(2);
  const torch::Tensor mask = a > 0;
  for (auto _ : state) {
    torch::Tensor c = at::where(mask, a, b);
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
}

void cat(benchmark::State& state) {
  const torch::Tensor a = tiny(1);
  const torch::Tensor b = tiny(2);
  for (auto _ : state) {
    torch::Tensor c = at::cat({a, b});
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
}

void narrow(benchmark::State& state) {
  const torch::Tensor m = tiny(1, {2, 2});
  for (auto _ : state) {
    torch::Tensor c = m.narrow(0, 0, 1);
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
}

void unsqueeze(benchmark::State& state) {
  const torch::Tensor a = tiny(1);
  for (auto _ : state) {
    torch::Tensor c = a.unsqueeze(0);
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
}

void reshape(benchmark::State& state) {
  const torch::Tensor m = tiny(1, {2, 2});
  for (auto _ : state) {
    torch::Tensor c = m.reshape({4});
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
}

void contiguous(benchmark::State& state) {
  const torch::Tensor m = tiny(1, {2, 2});
  const torch::Tensor t = m.transpose(0, 1);
  for (auto _ : state) {
    torch::Tensor c = t.contiguous();
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
}

// --- kernel-dominated ---------------------------------------------------------------

void matmul_512(benchmark::State& state) {
  torch::manual_seed(0);
  const torch::Tensor x = torch::randn({512, 512});
  const torch::Tensor y = torch::randn({512, 512});
  for (auto _ : state) {
    torch::Tensor z = torch::matmul(x, y);
    benchmark::DoNotOptimize(z.unsafeGetTensorImpl());
  }
}

void conv2d_224(benchmark::State& state) {
  torch::manual_seed(0);
  const torch::Tensor x = torch::randn({1, 3, 224, 224});
  const torch::Tensor w = torch::randn({64, 3, 3, 3});
  const torch::Tensor b = torch::randn({64});
  for (auto _ : state) {
    torch::Tensor y = torch::conv2d(x, w, b, /*stride=*/1, /*padding=*/1);
    benchmark::DoNotOptimize(y.unsafeGetTensorImpl());
  }
}

/// examples/network's classifier (the layers of make_checkpoint.py).
torch::nn::Sequential network() {
  namespace nn = torch::nn;
  return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(3, 16, 3).padding(1)), nn::BatchNorm2d(16),
                        nn::ReLU(), nn::MaxPool2d(2),
                        nn::Conv2d(nn::Conv2dOptions(16, 32, 3).padding(1)), nn::ReLU(),
                        nn::AdaptiveAvgPool2d(1), nn::Flatten(), nn::Linear(32, 10));
}

void network_forward(benchmark::State& state) {
  const auto tensors = libtorch_bench::read_safetensors(checkpoint_path);
  torch::nn::Sequential net = network();
  net->eval();
  {
    torch::NoGradGuard no_grad;
    for (auto& item : net->named_parameters()) {
      item.value().copy_(tensors.at("net." + item.key()));
      item.value().requires_grad_(false);
    }
    for (auto& item : net->named_buffers())
      item.value().copy_(tensors.at("net." + item.key()));
  }
  const torch::Tensor input = tensors.at("input");
  torch::NoGradGuard no_grad;
  const float difference = (net->forward(input) - tensors.at("expected")).abs().max().item<float>();
  if (difference > 1e-5f) {
    state.SkipWithError(("output differs from PyTorch's by " + std::to_string(difference)).c_str());
    return;
  }
  for (auto _ : state) {
    torch::Tensor logits = net->forward(input);
    benchmark::DoNotOptimize(logits.unsafeGetTensorImpl());
  }
}

/// FP_BENCH_ITERATIONS=N fixes every case's iteration count (for callgrind:
/// run_ops_overhead.sh --callgrind divides instruction counts by it).
void set_iterations(benchmark::internal::Benchmark* benchmark) {
  if (const char* iterations = std::getenv("FP_BENCH_ITERATIONS")) {
    benchmark->Iterations(std::atoll(iterations));
  }
}

void register_all() {
  using Function = void (*)(benchmark::State&);
  const std::pair<const char*, Function> tiny_cases[] = {
      {"add", &add},
      {"mul", &mul},
      {"mul_typed", &mul_typed},
      {"mul_by_name", &mul_by_name},
      {"mul_number", &mul_number},
      {"sum", &sum},
      {"index_view", &index_view},
      {"transpose", &transpose},
      {"shallow_copy", &shallow_copy},
      {"copy", &copy},
      {"clone", &clone},
      {"item", &item},
      {"sizes", &sizes},
      {"sub", &sub},
      {"div", &div},
      {"relu", &relu},
      {"exp", &exp},
      {"argmax", &argmax},
      {"masked_fill", &masked_fill},
      {"where", &where},
      {"cat", &cat},
      {"narrow", &narrow},
      {"unsqueeze", &unsqueeze},
      {"reshape", &reshape},
      {"contiguous", &contiguous},
  };
  for (const auto& [name, function] : tiny_cases) {
    set_iterations(benchmark::RegisterBenchmark(name, function)->Unit(benchmark::kNanosecond));
  }
  std::vector<std::pair<const char*, Function>> kernel_cases = {{"matmul_512", &matmul_512},
                                                                {"conv2d_224", &conv2d_224}};
  if (!checkpoint_path.empty()) kernel_cases.emplace_back("network_forward", &network_forward);
  for (const auto& [name, function] : kernel_cases) {
    set_iterations(benchmark::RegisterBenchmark(name, function)->Unit(benchmark::kMicrosecond));
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (argc > 2) {
    std::fprintf(stderr, "usage: %s [CHECKPOINT.safetensors] [Google Benchmark flags]\n", argv[0]);
    return 2;
  }
  if (argc == 2) checkpoint_path = argv[1];
  std::fprintf(stderr, "libtorch %s, %d intra-op threads\n", TORCH_VERSION, at::get_num_threads());
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
