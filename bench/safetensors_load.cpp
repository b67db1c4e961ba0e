// Loading a large safetensors file from C++, next to memcpy's bandwidth.
// bench/run_safetensors.sh runs it with bench/safetensors_load.py (Python's
// safetensors and torch.load on the same weights) and prints the ratios.
//
//   bench_safetensors_load FILE [Google Benchmark flags]
//
// Each case reads the whole file once per iteration, from the page cache
// (the script reads the file first; nothing here drops caches).
#include <benchmark/benchmark.h>

#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {

namespace st = fp::safetensors;

std::filesystem::path bench_file;

std::size_t file_bytes() {
  return std::filesystem::file_size(bench_file);
}

/// One new, contiguous CPU tensor per tensor of the file, its pages touched:
/// the parameters of a model that exists before its weights are loaded.
fp::StateDict preallocated_like(const st::MappedFile& file) {
  fp::StateDict tensors;
  for (const st::TensorInfo& info : file.header().tensors) {
    const fp::TensorView source = file.get(info.name);
    const auto sizes = source.sizes();
    std::vector<std::int64_t> strides(sizes.size(), 1);
    for (std::size_t d = sizes.size(); d-- > 1;)
      strides[d - 1] = strides[d] * sizes[d];
    fp::Tensor tensor(fp::abi::empty_strided(sizes, strides, source.dtype(), fp::Device::cpu()));
    std::memset(fp::abi::mutable_data_ptr(tensor.raw()), 0, tensor.nbytes());
    tensors.insert(info.name, std::move(tensor));
  }
  return tensors;
}

void set_bytes(benchmark::State& state) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * file_bytes()));
}

/// The floor: copying the file's size once, memory to memory.
void memcpy_file_size(benchmark::State& state) {
  const std::size_t size = file_bytes();
  std::vector<char> source(size, 1);
  std::vector<char> target(size, 0);
  for (auto _ : state) {
    std::memcpy(target.data(), source.data(), size);
    benchmark::DoNotOptimize(target.data());
    benchmark::ClobberMemory();
  }
  set_bytes(state);
}

/// MappedFile::open and a view of every tensor: no byte of data is read.
void mmap_views(benchmark::State& state) {
  for (auto _ : state) {
    const auto file = st::MappedFile::open(bench_file);
    for (const std::string& name : file.keys())
      benchmark::DoNotOptimize(file.get(name).raw());
  }
  set_bytes(state);
}

/// MappedFile::open, then every view copied into the preallocated tensor of
/// its name: what Module::load_state_dict(MappedFile) will do.
void mmap_into_preallocated(benchmark::State& state) {
  fp::StateDict model = preallocated_like(st::MappedFile::open(bench_file));
  for (auto _ : state) {
    const auto file = st::MappedFile::open(bench_file);
    for (const st::TensorInfo& info : file.header().tensors) {
      fp::abi::copy_(model.at(info.name).raw(), file.get(info.name).raw());
    }
  }
  set_bytes(state);
}

/// fp::safetensors::load: new owned tensors, read with pread.
void load_owned(benchmark::State& state) {
  for (auto _ : state) {
    const fp::StateDict tensors = st::load(bench_file);
    benchmark::DoNotOptimize(tensors.size());
  }
  set_bytes(state);
}

/// MappedFile::to(cpu): new owned tensors copied from the mapping.
void mmap_to_cpu(benchmark::State& state) {
  for (auto _ : state) {
    const fp::StateDict tensors = st::MappedFile::open(bench_file).to(fp::Device::cpu());
    benchmark::DoNotOptimize(tensors.size());
  }
  set_bytes(state);
}

void register_all() {
  for (const auto& [name, function] :
       {std::pair{"memcpy", &memcpy_file_size}, std::pair{"fp_mmap_views", &mmap_views},
        std::pair{"fp_mmap_into_preallocated", &mmap_into_preallocated},
        std::pair{"fp_load_owned", &load_owned}, std::pair{"fp_mmap_to_cpu", &mmap_to_cpu}}) {
    benchmark::RegisterBenchmark(name, function)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->MinTime(2.0);
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FILE [Google Benchmark flags]\n", argv[0]);
    return 2;
  }
  bench_file = argv[1];
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
