// What a call costs through flash_powder: tiny tensors (4 floats), where the
// time is all overhead, and kernels large enough that it should vanish.
// bench/run_ops_overhead.sh runs it next to ops_overhead_libtorch.cpp (the
// same cases with libtorch's C++ API) and ops_overhead.py (PyTorch Python),
// with the same thread setting, and prints the ratios.
//
//   bench_ops_overhead [CHECKPOINT.safetensors] [Google Benchmark flags]
//
// CHECKPOINT is what examples/network/make_checkpoint.py writes; without it
// the network case is skipped.
//
// Each case has the same name on the three sides. The `cabi_*` cases do the
// same work with bare stable-C-ABI calls (no schema check, no fp types): the
// floor flash_powder's own bookkeeping sits on.
//
// Why this file is long: one benchmark per kind of op call measured.
#include <benchmark/benchmark.h>

#include <flash_powder/abi/schema.h>
#include <flash_powder/aten/aten.h>
#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>
// The stable C ABI itself, for the cabi_* floor cases only.
#include <torch/csrc/inductor/aoti_torch/c/shim.h>
#include <torch/csrc/inductor/aoti_torch/generated/c_shim_aten.h>
#include <torch/csrc/stable/c/shim.h>

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

namespace nn = fp::nn;

std::string checkpoint_path;

/// 4 floats, shaped [4] (and [2, 2] where a view needs a dimension to take).
fp::Tensor tiny(std::uint64_t seed, fp::IntList shape = {4}) {
  fp::Generator generator(seed);
  return fp::randn(shape, generator, fp::DType::F32);
}

// --- overhead-dominated: tiny tensors ------------------------------------------

void add(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  const fp::Tensor b = tiny(2);
  for (auto _ : state) {
    fp::Tensor c = a + b;
    benchmark::DoNotOptimize(c.raw());
  }
}

void mul(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  const fp::Tensor b = tiny(2);
  for (auto _ : state) {
    fp::Tensor c = a * b;
    benchmark::DoNotOptimize(c.raw());
  }
}

/// The generated typed wrapper: the schema is looked up once, in a static.
void mul_typed(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  const fp::Tensor b = tiny(2);
  for (auto _ : state) {
    fp::Tensor c = fp::aten::mul_Tensor(a, b);
    benchmark::DoNotOptimize(c.raw());
  }
}

/// By name: the schema is looked up (in a map under a mutex) on every call.
void mul_by_name(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  const fp::Tensor b = tiny(2);
  for (auto _ : state) {
    fp::Tensor c = fp::dispatch<fp::Tensor>("aten::mul", "Tensor", a, b);
    benchmark::DoNotOptimize(c.raw());
  }
}

/// A number becomes a 0-dim tensor first (no Scalar crosses the stable ABI).
void mul_number(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  for (auto _ : state) {
    fp::Tensor c = a * 2.5;
    benchmark::DoNotOptimize(c.raw());
  }
}

void sum(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  for (auto _ : state) {
    fp::Tensor c = a.sum();
    benchmark::DoNotOptimize(c.raw());
  }
}

/// `m[0]` of a [2, 2] tensor: a view with its own handle (and, with
/// FP_BORROW_CHECK, a registration with m's borrow state).
void index_view(benchmark::State& state) {
  const fp::Tensor m = tiny(1, {2, 2});
  for (auto _ : state) {
    fp::TensorView row = m.i(0);
    benchmark::DoNotOptimize(row.raw());
  }
}

/// A view made by one generated view op, without the indexing machinery.
void transpose(benchmark::State& state) {
  const fp::Tensor m = tiny(1, {2, 2});
  for (auto _ : state) {
    fp::TensorView t = m.transpose(0, 1);
    benchmark::DoNotOptimize(t.raw());
  }
}

/// A TensorView of a whole Tensor: one new handle (libtorch: a refcount).
void shallow_copy(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  for (auto _ : state) {
    fp::TensorView v = a;
    benchmark::DoNotOptimize(v.raw());
  }
}

/// Copying a Tensor: an independent value, a lazy (copy-on-write) clone.
void copy(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  for (auto _ : state) {
    fp::Tensor c = a;
    benchmark::DoNotOptimize(c.raw());
  }
}

/// An eager copy of the data.
void clone(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  for (auto _ : state) {
    fp::Tensor c = a.clone();
    benchmark::DoNotOptimize(c.raw());
  }
}

void item(benchmark::State& state) {
  const fp::Tensor s = fp::tensor(2.5f);
  for (auto _ : state) {
    benchmark::DoNotOptimize(s.item<float>());
  }
}

void sizes(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  for (auto _ : state) {
    benchmark::DoNotOptimize(a.sizes()[0]);
  }
}

// --- the cases of the seed's post-processing: thresholds, masks, picks ------------

void sub(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  const fp::Tensor b = tiny(2);
  for (auto _ : state) {
    fp::Tensor c = a - b;
    benchmark::DoNotOptimize(c.raw());
  }
}

void div(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  const fp::Tensor b = tiny(2);
  for (auto _ : state) {
    fp::Tensor c = a / b;
    benchmark::DoNotOptimize(c.raw());
  }
}

void relu(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  for (auto _ : state) {
    fp::Tensor c = fp::functional::relu(a);
    benchmark::DoNotOptimize(c.raw());
  }
}

void exp(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  for (auto _ : state) {
    fp::Tensor c = a.exp();
    benchmark::DoNotOptimize(c.raw());
  }
}

void argmax(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  for (auto _ : state) {
    fp::Tensor c = a.argmax();
    benchmark::DoNotOptimize(c.raw());
  }
}

void masked_fill(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  const fp::Tensor mask = a > 0;
  for (auto _ : state) {
    fp::Tensor c = a.masked_fill(mask, 0.5);
    benchmark::DoNotOptimize(c.raw());
  }
}

void where(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  const fp::Tensor b = tiny(2);
  const fp::Tensor mask = a > 0;
  for (auto _ : state) {
    fp::Tensor c = fp::where(mask, a, b);
    benchmark::DoNotOptimize(c.raw());
  }
}

void cat(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  const fp::Tensor b = tiny(2);
  for (auto _ : state) {
    fp::Tensor c = fp::cat({a, b});
    benchmark::DoNotOptimize(c.raw());
  }
}

void narrow(benchmark::State& state) {
  const fp::Tensor m = tiny(1, {2, 2});
  for (auto _ : state) {
    fp::TensorView v = m.narrow(0, 0, 1);
    benchmark::DoNotOptimize(v.raw());
  }
}

void unsqueeze(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  for (auto _ : state) {
    fp::TensorView v = a.unsqueeze(0);
    benchmark::DoNotOptimize(v.raw());
  }
}

void reshape(benchmark::State& state) {
  const fp::Tensor m = tiny(1, {2, 2});
  for (auto _ : state) {
    fp::Tensor r = m.reshape({4});
    benchmark::DoNotOptimize(r.raw());
  }
}

/// A contiguous copy of a transposed [2, 2] tensor.
void contiguous(benchmark::State& state) {
  const fp::Tensor m = tiny(1, {2, 2});
  const fp::TensorView t = m.transpose(0, 1);
  for (auto _ : state) {
    fp::Tensor c = t.contiguous();
    benchmark::DoNotOptimize(c.raw());
  }
}

// --- kernel-dominated ---------------------------------------------------------------

void matmul_512(benchmark::State& state) {
  fp::Generator generator(0);
  const fp::Tensor x = fp::randn({512, 512}, generator, fp::DType::F32);
  const fp::Tensor y = fp::randn({512, 512}, generator, fp::DType::F32);
  for (auto _ : state) {
    fp::Tensor z = fp::matmul(x, y);
    benchmark::DoNotOptimize(z.raw());
  }
}

void conv2d_224(benchmark::State& state) {
  fp::Generator generator(0);
  const fp::Tensor x = fp::randn({1, 3, 224, 224}, generator, fp::DType::F32);
  const fp::Tensor w = fp::randn({64, 3, 3, 3}, generator, fp::DType::F32);
  const fp::Tensor b = fp::randn({64}, generator, fp::DType::F32);
  for (auto _ : state) {
    fp::Tensor y = fp::functional::conv2d(x, w, b, {.padding = 1});
    benchmark::DoNotOptimize(y.raw());
  }
}

/// examples/network's classifier (the layers of make_checkpoint.py).
nn::Sequential network() {
  return nn::Sequential(nn::Conv2d(3, 16, 3, {.padding = 1}), nn::BatchNorm2d(16), nn::ReLU(),
                        nn::MaxPool2d(2), nn::Conv2d(16, 32, 3, {.padding = 1}), nn::ReLU(),
                        nn::AdaptiveAvgPool2d(1), nn::Flatten(), nn::Linear(32, 10));
}

void network_forward(benchmark::State& state) {
  const auto file = fp::safetensors::MappedFile::open(checkpoint_path);
  fp::StateDict weights;
  for (const std::string& key : file.keys()) {
    if (key.starts_with("net.")) weights.insert(key.substr(4), file.get(key).to_owned());
  }
  nn::Sequential net = network();
  net.load_state_dict(weights);
  const fp::Tensor input = file.get("input").to_owned();
  // The same output as PyTorch's, or the timing means nothing.
  const float difference = (net(input) - file.get("expected")).abs().max().item<float>();
  if (difference > 1e-5f) {
    state.SkipWithError(("output differs from PyTorch's by " + std::to_string(difference)).c_str());
    return;
  }
  for (auto _ : state) {
    fp::Tensor logits = net(input);
    benchmark::DoNotOptimize(logits.raw());
  }
}

// --- the floor: the same work in bare stable-C-ABI calls -------------------------------

void ok(AOTITorchError status, const char* what) {
  if (status != AOTI_TORCH_SUCCESS) {
    std::fprintf(stderr, "bench_ops_overhead: %s failed\n", what);
    std::abort();
  }
}

AtenTensorHandle new_handle(fp::abi::RawTensor tensor) {
  AtenTensorHandle out = nullptr;
  ok(aoti_torch_new_tensor_handle(tensor, &out), "aoti_torch_new_tensor_handle");
  return out;
}

StableIValue boxed(AtenTensorHandle tensor) {
  return std::bit_cast<StableIValue>(tensor);
}

/// torch_call_dispatcher with a prepared stack; frees the one tensor it returns.
template <std::size_t N>
void call_and_free(const char* op, const char* overload, StableIValue (&stack)[N]) {
  ok(torch_call_dispatcher(op, overload, stack, fp::abi::builtin_schema_abi_version()), op);
  ok(aoti_torch_delete_tensor_object(std::bit_cast<AtenTensorHandle>(stack[0])), "delete");
}

/// What `a + b` is made of for floats, without result_type and the checks.
void cabi_add(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  const fp::Tensor b = tiny(2);
  for (auto _ : state) {
    AtenTensorHandle out = nullptr;
    ok(aoti_torch_aten_subtract_Tensor(a.raw(), b.raw(), -1.0, &out), "subtract");
    ok(aoti_torch_delete_tensor_object(out), "delete");
  }
}

void cabi_mul(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  const fp::Tensor b = tiny(2);
  for (auto _ : state) {
    StableIValue stack[] = {boxed(new_handle(a.raw())), boxed(new_handle(b.raw()))};
    call_and_free("aten::mul", "Tensor", stack);
  }
}

void cabi_mul_number(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  for (auto _ : state) {
    AtenTensorHandle number = nullptr;
    ok(aoti_torch_scalar_to_tensor_float64(2.5, &number), "scalar_to_tensor");
    StableIValue stack[] = {boxed(new_handle(a.raw())), boxed(number)};
    call_and_free("aten::mul", "Tensor", stack);
  }
}

void cabi_sum(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  for (auto _ : state) {
    StableIValue stack[] = {boxed(new_handle(a.raw())), 0};  // dtype=None
    call_and_free("aten::sum", "", stack);
  }
}

void cabi_index_view(benchmark::State& state) {
  const fp::Tensor m = tiny(1, {2, 2});
  for (auto _ : state) {
    StableIValue stack[] = {boxed(new_handle(m.raw())), 0, 0};  // dim 0, index 0
    call_and_free("aten::select", "int", stack);
  }
}

void cabi_transpose(benchmark::State& state) {
  const fp::Tensor m = tiny(1, {2, 2});
  for (auto _ : state) {
    StableIValue stack[] = {boxed(new_handle(m.raw())), 0, 1};
    call_and_free("aten::transpose", "int", stack);
  }
}

void cabi_shallow_copy(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  for (auto _ : state) {
    ok(aoti_torch_delete_tensor_object(new_handle(a.raw())), "delete");
  }
}

void cabi_copy(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  for (auto _ : state) {
    StableIValue stack[] = {boxed(new_handle(a.raw()))};
    call_and_free("aten::_lazy_clone", "", stack);
  }
}

void cabi_clone(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  for (auto _ : state) {
    StableIValue stack[] = {boxed(new_handle(a.raw())), 0};  // memory_format=None
    call_and_free("aten::clone", "", stack);
  }
}

// The dispatcher-only cases: one torch_call_dispatcher each.

void cabi_div(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  const fp::Tensor b = tiny(2);
  for (auto _ : state) {
    StableIValue stack[] = {boxed(new_handle(a.raw())), boxed(new_handle(b.raw()))};
    call_and_free("aten::div", "Tensor", stack);
  }
}

void cabi_relu(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  for (auto _ : state) {
    StableIValue stack[] = {boxed(new_handle(a.raw()))};
    call_and_free("aten::relu", "", stack);
  }
}

void cabi_exp(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  for (auto _ : state) {
    StableIValue stack[] = {boxed(new_handle(a.raw()))};
    call_and_free("aten::exp", "", stack);
  }
}

void cabi_argmax(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  for (auto _ : state) {
    StableIValue stack[] = {boxed(new_handle(a.raw())), 0, 0};  // dim=None, keepdim=False
    call_and_free("aten::argmax", "", stack);
  }
}

/// No Scalar crosses the stable ABI: the value is a 0-dim tensor.
void cabi_masked_fill(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  const fp::Tensor mask = a > 0;
  for (auto _ : state) {
    AtenTensorHandle value = nullptr;
    ok(aoti_torch_scalar_to_tensor_float32(0.5f, &value), "scalar_to_tensor");
    StableIValue stack[] = {boxed(new_handle(a.raw())), boxed(new_handle(mask.raw())),
                            boxed(value)};
    call_and_free("aten::masked_fill", "Tensor", stack);
  }
}

void cabi_where(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  const fp::Tensor b = tiny(2);
  const fp::Tensor mask = a > 0;
  for (auto _ : state) {
    StableIValue stack[] = {boxed(new_handle(mask.raw())), boxed(new_handle(a.raw())),
                            boxed(new_handle(b.raw()))};
    call_and_free("aten::where", "self", stack);
  }
}

/// An independent reshaped copy: the view made from sizes and strides, then
/// `_lazy_clone` (flash_powder's reshape returns a value, not a view).
void cabi_reshape(benchmark::State& state) {
  const fp::Tensor m = tiny(1, {2, 2});
  const std::int64_t size = 4;
  const std::int64_t stride = 1;
  for (auto _ : state) {
    AtenTensorHandle view = nullptr;
    ok(aoti_torch__reinterpret_tensor(m.raw(), 1, &size, &stride, 0, &view), "reinterpret");
    StableIValue stack[] = {boxed(view)};
    call_and_free("aten::_lazy_clone", "", stack);
  }
}

void cabi_contiguous(benchmark::State& state) {
  const fp::Tensor m = tiny(1, {2, 2});
  const fp::TensorView t = m.transpose(0, 1);
  const auto contiguous = static_cast<StableIValue>(aoti_torch_memory_format_contiguous_format());
  for (auto _ : state) {
    auto* format = new StableIValue(contiguous);  // torch_new_stable_ivalue's box
    StableIValue stack[] = {boxed(new_handle(t.raw())), std::bit_cast<StableIValue>(format)};
    call_and_free("aten::clone", "", stack);
  }
}

/// The element of a CPU float32 0-dim tensor: check the dtype, read the data.
void cabi_item(benchmark::State& state) {
  const fp::Tensor s = fp::tensor(2.5f);
  std::int32_t float32 = aoti_torch_dtype_float32();
  for (auto _ : state) {
    std::int32_t dtype = 0;
    const void* data = nullptr;
    ok(aoti_torch_get_dtype(s.raw(), &dtype), "dtype");
    ok(torch_get_const_data_ptr(s.raw(), &data), "data");
    benchmark::DoNotOptimize(dtype == float32 ? *static_cast<const float*>(data) : 0.f);
  }
}

void cabi_sizes(benchmark::State& state) {
  const fp::Tensor a = tiny(1);
  for (auto _ : state) {
    std::int64_t* data = nullptr;
    std::int64_t dim = 0;
    ok(aoti_torch_get_sizes(a.raw(), &data), "sizes");
    ok(aoti_torch_get_dim(a.raw(), &dim), "dim");
    benchmark::DoNotOptimize(dim > 0 ? data[0] : 0);
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
      {"cabi_add", &cabi_add},
      {"cabi_mul", &cabi_mul},
      {"cabi_mul_number", &cabi_mul_number},
      {"cabi_sum", &cabi_sum},
      {"cabi_index_view", &cabi_index_view},
      {"cabi_transpose", &cabi_transpose},
      {"cabi_shallow_copy", &cabi_shallow_copy},
      {"cabi_copy", &cabi_copy},
      {"cabi_clone", &cabi_clone},
      {"cabi_item", &cabi_item},
      {"cabi_sizes", &cabi_sizes},
      {"cabi_div", &cabi_div},
      {"cabi_relu", &cabi_relu},
      {"cabi_exp", &cabi_exp},
      {"cabi_argmax", &cabi_argmax},
      {"cabi_masked_fill", &cabi_masked_fill},
      {"cabi_where", &cabi_where},
      {"cabi_reshape", &cabi_reshape},
      {"cabi_contiguous", &cabi_contiguous},
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
  try {
    register_all();
    benchmark::RunSpecifiedBenchmarks();
  } catch (const fp::Error& error) {
    std::fprintf(stderr, "bench_ops_overhead: %s\n", error.what());
    return 1;
  }
  benchmark::Shutdown();
  return 0;
}
