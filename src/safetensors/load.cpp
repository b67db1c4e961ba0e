#include "flash_powder/safetensors/load.h"

#include <array>
#include <string>

#include "file_tensors.h"
#include "flash_powder/safetensors/format.h"
#include "posix_file.h"

namespace fp::safetensors {
namespace {

Header read_header(const detail::InputFile& file, const std::string& source) {
  std::array<std::byte, prefix_size> prefix{};
  file.read(prefix.data(), std::min<std::uint64_t>(file.size(), prefix_size), 0);
  const std::uint64_t length = header_length(prefix, file.size(), source);
  std::string json(length, '\0');
  file.read(json.data(), length, prefix_size);
  return parse_header(json, file.size() - prefix_size - length, source);
}

}  // namespace

// pread straight into each new tensor: one copy from the page cache, and no
// mapping whose page faults cost more than the copy.
StateDict load(const std::filesystem::path& path) {
  const std::string source = path.string();
  const detail::InputFile file(path);
  const Header header = read_header(file, source);
  StateDict tensors;
  for (const TensorInfo& info : header.tensors) {
    Tensor tensor = detail::empty_tensor(detail::torch_shape(info, source));
    if (info.byte_size() > 0) {
      file.read(abi::mutable_data_ptr(tensor.raw()), info.byte_size(),
                header.data_start + info.begin);
    }
    tensors.insert(info.name, std::move(tensor));
  }
  return tensors;
}

StateDict load(std::span<const std::byte> bytes) {
  const Header header = parse(bytes, "bytes");
  StateDict tensors;
  for (const TensorInfo& info : header.tensors) {
    tensors.insert(info.name, detail::copied_tensor(
                                  info, bytes.data() + header.data_start + info.begin, "bytes"));
  }
  return tensors;
}

}  // namespace fp::safetensors
