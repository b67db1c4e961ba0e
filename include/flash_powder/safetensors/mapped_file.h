// A safetensors file mapped into memory: tensors without a copy.
// Python: `safetensors.safe_open(path, framework="pt")`.
#pragma once

#include <cstddef>
#include <cstdint>
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

/// How MappedFile::open holds the file's bytes.
enum class FileAccess : std::uint8_t {
  /// Maps the file (the default): opening costs no copy and reads no data;
  /// pages are read from the file when a view first touches them. The file
  /// must stay as it is while any view of it lives (see MappedFile).
  Map,
  /// Reads the whole file at open into read-only memory of the MappedFile's
  /// own, which its views share as they would share a mapping. Costs one copy
  /// and the file's size in memory; the file may then be truncated, rewritten
  /// or deleted without effect on the views.
  Copy,
};

/// The options of MappedFile::open.
struct OpenOptions {
  /// Map the file (zero-copy) or read a copy of it.
  FileAccess access = FileAccess::Map;
};

/// A validated safetensors file, mapped read-only. `get()` returns views of
/// the mapped bytes (no copy): each view keeps the mapping alive, so it stays
/// valid after the MappedFile is gone, like every fp::TensorView. The
/// mapping is released with the last of them.
///
/// A MappedFile is a state-dict reader: `module.load_state_dict(file)` copies
/// straight from the mapping into the module's tensors.
///
/// A mapped file and other writers. A mapping reads the file's pages when a
/// view first touches them, so the file must not change while mapped. What
/// open() refuses (fp::Error):
///   - a file shorter or longer than its header says: truncated, or still
///     being written (ErrorCode::Format, naming the tensor past the end or
///     the bytes left over);
///   - a file whose size or modification time changed while open() read it:
///     another process is writing it (ErrorCode::Io);
///   - anything but a regular file: a FIFO, a device (ErrorCode::Io).
/// What no reader of a mapped file can detect, so it is the caller's to avoid:
///   - the file truncated by another process after open(): reading a view of
///     a page that is no longer in the file raises SIGBUS, which kills the
///     process. So does every mmap-based loader (Python's
///     safetensors.safe_open and load_file, torch.load(mmap=True),
///     numpy.memmap). Python's save_file and torch.save rewrite a file in
///     place, truncating it first: saving over a file another process has
///     mapped is such a truncation;
///   - the file written in place after open(), without truncating it: views
///     may show the new bytes (a private mapping keeps only the pages it has
///     written, and a MappedFile writes none).
/// Replacing a file by renaming a new one over it is safe: the mapping keeps
/// the old file's data (fp::safetensors::save replaces files that way). Where
/// other programs may truncate or rewrite the file in place, open it with
/// `{.access = FileAccess::Copy}`, or load it with fp::safetensors::load.
class MappedFile final : public StateDictReader {
 public:
  /// Maps (or with FileAccess::Copy reads) and validates the file; throws
  /// fp::Error naming the file, the tensor and the rule (see format.h) when
  /// it is not a valid safetensors file, and naming the file and the
  /// system's reason (ErrorCode::Io) when it cannot be read or changed while
  /// being opened.
  static MappedFile open(const std::filesystem::path& path, const OpenOptions& options = {});

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
  /// Whether the file holds a tensor called `name`.
  bool contains(std::string_view name) const { return info(name) != nullptr; }
  /// The number of tensors.
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
