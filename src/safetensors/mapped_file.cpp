#include "flash_powder/safetensors/mapped_file.h"

#include <utility>

#include "file_tensors.h"
#include "flash_powder/aten/aten.h"
#include "messages.h"
#include "posix_file.h"

namespace fp::safetensors {

MappedFile::MappedFile(std::shared_ptr<const detail::Mapping> mapping, Header header,
                       std::string source)
    : mapping_(std::move(mapping)), header_(std::move(header)), source_(std::move(source)) {
  index_.reserve(header_.tensors.size());
  for (std::size_t i = 0; i < header_.tensors.size(); ++i)
    index_.emplace(header_.tensors[i].name, i);
}

const TensorInfo* MappedFile::info(std::string_view name) const {
  const auto found = index_.find(std::string(name));
  return found == index_.end() ? nullptr : &header_.tensors[found->second];
}

MappedFile MappedFile::open(const std::filesystem::path& path, const OpenOptions& options) {
  std::string source = path.string();
  const detail::InputFile file(path);
  auto mapping =
      options.access == FileAccess::Copy ? detail::Mapping::copy(file) : detail::Mapping::map(file);
  // A writer busy while the header was checked against the size: what was
  // checked may not be what is mapped. Said first when it also broke the file.
  Header header;
  try {
    header = parse(mapping->bytes(), source);
  } catch (const Error&) {
    file.check_unchanged();
    throw;
  }
  file.check_unchanged();
  return MappedFile(std::move(mapping), std::move(header), std::move(source));
}

std::vector<std::string> MappedFile::keys() const {
  std::vector<std::string> names;
  names.reserve(header_.tensors.size());
  for (const TensorInfo& info : header_.tensors)
    names.push_back(info.name);
  return names;
}

std::optional<TensorView> MappedFile::find(std::string_view key) const {
  const TensorInfo* found = info(key);
  if (found == nullptr) return std::nullopt;
  return detail::mapped_view(*found, header_.data_start, mapping_, source_);
}

TensorView MappedFile::get(std::string_view name) const {
  std::optional<TensorView> view = find(name);
  if (!view) {
    throw Error(ErrorCode::BadArgument,
                detail::message_prefix(source_) + "no tensor called " + detail::in_quotes(name));
  }
  return std::move(*view);
}

StateDict MappedFile::to(Device device) const {
  StateDict tensors;
  for (const TensorInfo& info : header_.tensors) {
    const TensorView view = detail::mapped_view(info, header_.data_start, mapping_, source_);
    // One copy, from the mapped pages to the device.
    tensors.insert(info.name, aten::_to_copy(view, std::nullopt, std::nullopt, device, std::nullopt,
                                             false, MemoryFormat::Contiguous));
  }
  return tensors;
}

}  // namespace fp::safetensors
