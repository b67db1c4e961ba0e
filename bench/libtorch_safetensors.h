// Reading and writing safetensors files with libtorch's C++ API, which has no
// reader of its own: for the libtorch sides of the benchmarks
// (ops_overhead_libtorch.cpp, vision_forward_libtorch.cpp). F32 and I64 only.
#pragma once

#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace libtorch_bench {

/// The tensors of a safetensors file, read with its JSON header.
inline std::map<std::string, torch::Tensor> read_safetensors(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::uint64_t header_size = 0;
  in.read(reinterpret_cast<char*>(&header_size), sizeof header_size);
  std::string header(header_size, '\0');
  in.read(header.data(), static_cast<std::streamsize>(header_size));
  const std::vector<char> data((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
  if (!in.eof() && in.fail()) throw std::runtime_error("cannot read " + path);
  std::map<std::string, torch::Tensor> tensors;
  const nlohmann::json entries = nlohmann::json::parse(header);
  for (const auto& [name, info] : entries.items()) {
    if (name == "__metadata__") continue;
    const std::string dtype = info.at("dtype");
    if (dtype != "F32" && dtype != "I64") throw std::runtime_error("unexpected dtype " + dtype);
    const auto options =
        torch::TensorOptions().dtype(dtype == "F32" ? torch::kFloat32 : torch::kInt64);
    const std::vector<std::int64_t> shape = info.at("shape");
    const std::vector<std::size_t> offsets = info.at("data_offsets");
    torch::Tensor tensor = torch::empty(shape, options);
    std::memcpy(tensor.data_ptr(), data.data() + offsets[0], offsets[1] - offsets[0]);
    tensors.emplace(name, tensor);
  }
  return tensors;
}

/// Writes one float32 tensor under `name` (packed into contiguous order).
inline void write_safetensors(const std::string& path, const std::string& name,
                              const torch::Tensor& tensor) {
  const torch::Tensor packed = tensor.to(torch::kFloat32).contiguous();
  const auto bytes = static_cast<std::size_t>(packed.numel()) * sizeof(float);
  nlohmann::json header;
  header[name] = {{"dtype", "F32"}, {"shape", packed.sizes().vec()}, {"data_offsets", {0, bytes}}};
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // the data starts 8-byte aligned
  const std::uint64_t header_size = text.size();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(&header_size), sizeof header_size);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.write(static_cast<const char*>(packed.data_ptr()), static_cast<std::streamsize>(bytes));
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace libtorch_bench
