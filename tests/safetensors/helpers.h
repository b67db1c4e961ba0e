// Shared pieces of the safetensors tests: temporary folders, file bytes, the
// tensors the Python blocks build, and running Python on a file.
#pragma once

#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace st_test {

namespace st = fp::safetensors;

/// A fresh folder under the system's temporary folder, removed with its contents.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("fp_safetensors_test_" + std::to_string(::getpid()) + "_" +
             std::to_string(counter.fetch_add(1)));
    std::filesystem::create_directories(path_);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  const std::filesystem::path& path() const { return path_; }
  /// The names of the files in the folder.
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(path_)) {
      names.push_back(entry.path().filename().string());
    }
    return names;
  }

 private:
  std::filesystem::path path_;
};

inline std::vector<std::uint8_t> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_file(const std::filesystem::path& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

inline std::vector<std::uint8_t> as_uint8(const std::vector<std::byte>& bytes) {
  std::vector<std::uint8_t> out(bytes.size());
  for (std::size_t i = 0; i < bytes.size(); ++i)
    out[i] = static_cast<std::uint8_t>(bytes[i]);
  return out;
}

inline std::span<const std::byte> as_bytes(const std::vector<std::uint8_t>& bytes) {
  return std::as_bytes(std::span(bytes));
}

/// The raw bytes of a tensor's values, in row-major order.
inline std::vector<std::uint8_t> raw_bytes(fp::TensorView tensor) {
  const fp::Tensor packed = fp::dispatch<fp::Tensor>("aten::_to_copy", "", tensor, std::nullopt,
                                                     std::nullopt, fp::Device::cpu(), std::nullopt,
                                                     false, fp::MemoryFormat::Contiguous);
  const auto* data = static_cast<const std::uint8_t*>(fp::abi::const_data_ptr(packed.raw()));
  return {data, data + packed.nbytes()};
}

inline std::vector<std::int64_t> sizes_of(const fp::TensorView& tensor) {
  return {tensor.sizes().begin(), tensor.sizes().end()};
}

/// Every dtype both torch and safetensors have, in the order of the Python
/// blocks' EVERY_DTYPE list.
inline const std::vector<fp::DType> every_dtype = {
    fp::DType::Bool,        fp::DType::U8,          fp::DType::I8,         fp::DType::I16,
    fp::DType::U16,         fp::DType::F16,         fp::DType::BF16,       fp::DType::I32,
    fp::DType::U32,         fp::DType::F32,         fp::DType::F64,        fp::DType::I64,
    fp::DType::U64,         fp::DType::C64,         fp::DType::F8_E4M3FN,  fp::DType::F8_E5M2,
    fp::DType::F8_E4M3FNUZ, fp::DType::F8_E5M2FNUZ, fp::DType::F8_E8M0FNU, fp::DType::F4_E2M1FN_X2};

/// The tensor the Python helper `values_of(dtype)` makes:
///   base = torch.arange(-3, 3) if dtype.is_signed else torch.arange(0, 6)
///   base.reshape(2, 3).to(dtype)
/// and for float4_e2m1fn_x2 the bytes 0..5 viewed as that dtype.
inline fp::Tensor values_of(fp::DType dtype) {
  if (dtype == fp::DType::F4_E2M1FN_X2) {
    const std::uint8_t bytes[] = {0, 1, 2, 3, 4, 5};
    const std::int64_t sizes[] = {2, 3};
    return fp::detail::tensor_from_bytes(bytes, sizes, dtype);
  }
  const fp::Tensor base = fp::is_signed(dtype) ? fp::tensor<std::int64_t>({{-3, -2, -1}, {0, 1, 2}})
                                               : fp::tensor<std::int64_t>({{0, 1, 2}, {3, 4, 5}});
  return fp::dispatch<fp::Tensor>("aten::_to_copy", "", base, dtype);
}

/// values_of(dtype) for every dtype, named by torch's dtype names.
inline fp::StateDict every_dtype_tensors() {
  fp::StateDict tensors;
  for (const fp::DType dtype : every_dtype)
    tensors.insert(std::string(fp::name(dtype)), values_of(dtype));
  return tensors;
}

/// Runs tests/safetensors/<script> with the project's Python on `arguments`
/// and returns what it prints; throws if it fails.
inline std::string run_python(const std::string& script, const std::string& arguments) {
  const std::string command = std::string("'") + FP_TEST_PYTHON + "' '" + FP_SAFETENSORS_TEST_DIR +
                              "/" + script + "' " + arguments + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot run " + command);
  std::string output;
  char buffer[4096];
  while (const std::size_t got = std::fread(buffer, 1, sizeof buffer, pipe))
    output.append(buffer, got);
  const int status = ::pclose(pipe);
  if (status != 0) throw std::runtime_error(command + " failed:\n" + output);
  return output;
}

}  // namespace st_test
