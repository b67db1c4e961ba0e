// Writing safetensors files byte for byte as Python's save_file does.
#include "flash_powder/safetensors/save.h"

#include <algorithm>
#include <unordered_set>

#include "file_tensors.h"
#include "flash_powder/aten/aten.h"
#include "messages.h"
#include "posix_file.h"
#include "shared_memory.h"

namespace fp::safetensors {

// --- NamedTensors ------------------------------------------------------------------

NamedTensors::NamedTensors(const StateDict& tensors) {
  views_.reserve(tensors.size());
  for (const auto& [name, tensor] : tensors) {
    views_.emplace_back(name, TensorView(tensor));
  }
  entries_ = views_;
}

NamedTensors::NamedTensors(std::span<const NamedTensor> tensors) : entries_(tensors) {}

NamedTensors::NamedTensors(const std::vector<NamedTensor>& tensors) : entries_(tensors) {}

NamedTensors::NamedTensors(std::initializer_list<NamedTensor> tensors)
    : views_(tensors), entries_(views_) {}

namespace {

/// One tensor on its way to the file.
struct Planned {
  const NamedTensor* tensor;
  detail::FileShape file;
  std::uint64_t bytes;
};

[[noreturn]] void fail_tensor(std::string_view name, const std::string& message) {
  throw Error(ErrorCode::BadArgument, detail::message_prefix("save") + "tensor " +
                                          detail::in_quotes(name) + ": " + message);
}

Planned plan(const NamedTensor& named) {
  const auto& [name, tensor] = named;
  if (!tensor.is_defined()) fail_tensor(name, "the tensor is undefined");
  if (tensor.layout() != Layout::Strided) {
    fail_tensor(name, "a torch." + std::string(fp::name(tensor.layout())) +
                          " tensor cannot be saved; make it dense (strided) first");
  }
  return {&named, detail::file_shape(name, tensor.dtype(), tensor.sizes()), tensor.nbytes()};
}

/// The tensors in the reference implementation's order: widest dtype first
/// (so each tensor stays aligned), then by name, byte-wise.
std::vector<Planned> plan_all(std::span<const NamedTensor> tensors) {
  std::unordered_set<std::string_view> names;
  std::vector<Planned> planned;
  planned.reserve(tensors.size());
  for (const NamedTensor& named : tensors) {
    if (!names.insert(named.first).second) fail_tensor(named.first, "the name appears twice");
    planned.push_back(plan(named));
  }
  detail::check_no_shared_memory(tensors);
  std::sort(planned.begin(), planned.end(), [](const Planned& a, const Planned& b) {
    if (a.file.dtype != b.file.dtype) return a.file.dtype > b.file.dtype;
    return a.tensor->first < b.tensor->first;
  });
  return planned;
}

std::vector<TensorInfo> header_entries(const std::vector<Planned>& planned) {
  std::vector<TensorInfo> entries;
  entries.reserve(planned.size());
  std::uint64_t offset = 0;
  for (const Planned& item : planned) {
    entries.push_back(
        {item.tensor->first, item.file.dtype, item.file.shape, offset, offset + item.bytes});
    offset += item.bytes;
  }
  return entries;
}

/// True when the tensor's memory holds exactly its values in file order: on
/// the CPU, contiguous, and with no lazy conjugation or negation pending.
bool writable_as_is(const TensorView& tensor) {
  return tensor.device().is_cpu() && tensor.is_contiguous() && !aten::is_conj(tensor) &&
         !aten::is_neg(tensor);
}

/// Writes one tensor's values, packing (or fetching from its device) only
/// this tensor, so a large model never needs a second copy in memory.
template <class Sink>
void write_values(const Planned& item, Sink& sink) {
  if (item.bytes == 0) return;
  const TensorView& tensor = item.tensor->second;
  if (writable_as_is(tensor)) {
    sink.write(abi::const_data_ptr(tensor.raw()), item.bytes);
    return;
  }
  const Tensor packed = aten::_to_copy(tensor, std::nullopt, std::nullopt, Device::cpu(),
                                       std::nullopt, false, MemoryFormat::Contiguous);
  sink.write(abi::const_data_ptr(packed.raw()), item.bytes);
}

/// Everything decided before the first byte is written, so that a refused
/// save creates no file at all.
struct Prepared {
  std::vector<Planned> planned;
  std::string header;
  std::uint64_t total_size = 0;
};

Prepared prepare(const NamedTensors& tensors, const Metadata* metadata) {
  Prepared prepared{plan_all(tensors.entries()), {}, 0};
  const std::vector<TensorInfo> entries = header_entries(prepared.planned);
  prepared.header = serialize_header(entries, metadata);
  const std::uint64_t data_size = entries.empty() ? 0 : entries.back().end;
  prepared.total_size = prefix_size + prepared.header.size() + data_size;
  return prepared;
}

template <class Sink>
void write_prepared(const Prepared& prepared, Sink& sink) {
  const std::uint64_t length = prepared.header.size();  // little-endian, as the machine
  sink.write(&length, sizeof length);
  sink.write(prepared.header.data(), prepared.header.size());
  for (const Planned& item : prepared.planned)
    write_values(item, sink);
}

struct BytesSink {
  std::vector<std::byte> bytes;
  void write(const void* data, std::size_t size) {
    const auto* begin = static_cast<const std::byte*>(data);
    bytes.insert(bytes.end(), begin, begin + size);
  }
};

void save_file(const NamedTensors& tensors, const std::filesystem::path& path,
               const Metadata* metadata) {
  const Prepared prepared = prepare(tensors, metadata);
  detail::AtomicFileWriter file(path);
  write_prepared(prepared, file);
  file.commit();
}

std::vector<std::byte> save_bytes(const NamedTensors& tensors, const Metadata* metadata) {
  const Prepared prepared = prepare(tensors, metadata);
  BytesSink sink;
  sink.bytes.reserve(prepared.total_size);
  write_prepared(prepared, sink);
  return std::move(sink.bytes);
}

}  // namespace

void save(const NamedTensors& tensors, const std::filesystem::path& path) {
  save_file(tensors, path, nullptr);
}

void save(const NamedTensors& tensors, const std::filesystem::path& path,
          const Metadata& metadata) {
  save_file(tensors, path, &metadata);
}

std::vector<std::byte> save_to_bytes(const NamedTensors& tensors) {
  return save_bytes(tensors, nullptr);
}

std::vector<std::byte> save_to_bytes(const NamedTensors& tensors, const Metadata& metadata) {
  return save_bytes(tensors, &metadata);
}

}  // namespace fp::safetensors
