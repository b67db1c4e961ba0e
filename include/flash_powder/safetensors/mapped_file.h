// A safetensors file mapped into memory: tensors without a copy.
// Python: `safetensors.safe_open(path, framework="pt")`.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "flash_powder/base/device.h"
#include "flash_powder/core/state_dict.h"
#include "flash_powder/core/tensor.h"
#include "flash_powder/safetensors/format.h"

namespace fp::safetensors {

namespace detail {
class Mapping;
}

/// A validated safetensors file, mapped read-only. `get()` returns views of
/// the mapped bytes (no copy): each view keeps the mapping alive, so it stays
/// valid after the MappedFile is gone, like every fp::TensorView. The
/// mapping is released with the last of them.
///
/// A MappedFile is a state-dict reader: `module.load_state_dict(file)` copies
/// straight from the mapping into the module's tensors.
///
/// As with any memory-mapped file, the file must not be truncated while
/// mapped (reading a vanished page is a SIGBUS). fp::safetensors::save
/// replaces files by renaming, which is safe.
class MappedFile final : public StateDictReader {
 public:
  /// Maps and validates the file; throws fp::Error naming the file, the
  /// tensor and the rule (see format.h) when it is not a valid safetensors file.
  static MappedFile open(const std::filesystem::path& path);

  /// The tensor names in the order the header lists them.
  std::vector<std::string> keys() const override;
  /// A view of the tensor `key`, or nullopt when there is none.
  std::optional<TensorView> find(std::string_view key) const override;
  /// A read-only view of the tensor `name` on the CPU, over the mapped bytes.
  /// A tensor the file stores at an address not aligned for its dtype (not
  /// the case in files written by safetensors) is copied instead. Throws
  /// fp::Error naming the key when there is no such tensor, or when torch
  /// has no dtype for it.
  TensorView get(std::string_view name) const;
  bool contains(std::string_view name) const { return info(name) != nullptr; }
  std::size_t size() const { return header_.tensors.size(); }

  /// `__metadata__`, or nullopt when the file has none.
  const std::optional<Metadata>& metadata() const { return header_.metadata; }
  /// The parsed header: names, dtypes, shapes and offsets.
  const Header& header() const { return header_; }

  /// Every tensor copied to `device` straight from the mapping, as owned
  /// tensors in header order. Python: `load_file(path, device=...)`.
  StateDict to(Device device) const;

 private:
  MappedFile(std::shared_ptr<const detail::Mapping> mapping, Header header, std::string source);
  const TensorInfo* info(std::string_view name) const;

  std::shared_ptr<const detail::Mapping> mapping_;
  Header header_;
  std::string source_;
  // Name -> position in header_.tensors: state-dict loading looks up every key.
  std::unordered_map<std::string, std::size_t> index_;
};

}  // namespace fp::safetensors
