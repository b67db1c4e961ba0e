// libFuzzer target for the safetensors parser: any bytes must either parse
// or throw fp::Error; never crash, hang, leak or read out of bounds (ASan,
// UBSan and libstdc++'s assertions watch). A file that parses must also
// survive a round trip: its header, written back by serialize_header and
// parsed again, describes the same tensors and metadata.
//
// Built by scripts/fuzz-safetensors from the parser's sources alone, without
// libtorch: the parser needs no tensors (see include/flash_powder/safetensors/format.h).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

#include "flash_powder/safetensors/format.h"

namespace {

namespace st = fp::safetensors;

[[noreturn]] void bug(const char* what) {
  std::fprintf(stderr, "round trip failed: %s\n", what);
  std::abort();
}

std::vector<std::byte> rebuilt_file(const st::Header& header, std::span<const std::byte> file) {
  std::vector<st::TensorInfo> by_offset = header.tensors;
  std::stable_sort(by_offset.begin(), by_offset.end(), [](const auto& a, const auto& b) {
    return std::pair(a.begin, a.end) < std::pair(b.begin, b.end);
  });
  const std::string json =
      st::serialize_header(by_offset, header.metadata ? &*header.metadata : nullptr);
  std::vector<std::byte> out(st::prefix_size + json.size());
  const std::uint64_t length = json.size();
  std::memcpy(out.data(), &length, st::prefix_size);
  std::memcpy(out.data() + st::prefix_size, json.data(), json.size());
  out.insert(out.end(), file.begin() + static_cast<std::ptrdiff_t>(header.data_start), file.end());
  return out;
}

void check_round_trip(const st::Header& header, std::span<const std::byte> file) {
  st::Header again;
  try {
    again = st::parse(rebuilt_file(header, file));
  } catch (const fp::Error& error) {
    std::fprintf(stderr, "%s\n", error.what());
    bug("the rewritten file does not parse");
  }
  if (again.metadata != header.metadata) bug("the metadata changed");
  if (again.tensors.size() != header.tensors.size()) bug("the tensor count changed");
  for (const st::TensorInfo& tensor : header.tensors) {
    const st::TensorInfo* found = again.find(tensor.name);
    if (found == nullptr || !(*found == tensor)) bug("a tensor changed");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> file(reinterpret_cast<const std::byte*>(data), size);
  st::Header header;
  try {
    header = st::parse(file, "fuzz");
  } catch (const fp::Error&) {
    return 0;  // rejected: fine
  }
  check_round_trip(header, file);
  return 0;
}
