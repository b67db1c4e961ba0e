// The POSIX file work of the safetensors library (internal): reading at
// offsets, mapping a file, and replacing a file atomically.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace fp::safetensors::detail {

/// A regular file open for reading; closed on destruction.
class InputFile {
 public:
  /// Throws fp::Error naming `path` and the system's reason, or saying that
  /// it is not a regular file.
  explicit InputFile(const std::filesystem::path& path);
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  /// The size when opened.
  std::uint64_t size() const { return size_; }
  /// Reads exactly `size` bytes at `offset`; throws if the file ends first.
  void read(void* out, std::size_t size, std::uint64_t offset) const;
  int descriptor() const { return descriptor_; }
  const std::string& source() const { return source_; }
  /// Throws fp::Error (ErrorCode::Io) when the file's size or modification
  /// time differ from when it was opened: someone wrote it meanwhile.
  void check_unchanged() const;

 private:
  std::string source_;
  int descriptor_ = -1;
  std::uint64_t size_ = 0;
  std::int64_t modified_seconds_ = 0;
  std::int64_t modified_nanoseconds_ = 0;
};

/// A whole file's bytes in read-only memory: the file's pages mapped
/// (private), or a copy in memory of its own. Released when the last owner
/// (a MappedFile or a tensor viewing it) lets go.
class Mapping {
 public:
  /// Maps `file` as it was opened. Throws fp::Error when it cannot be mapped.
  /// An empty file gives an empty mapping.
  static std::shared_ptr<const Mapping> map(const InputFile& file);
  /// Reads `file` into anonymous memory made read-only afterwards. Throws
  /// fp::Error when memory runs out or the file ends early.
  static std::shared_ptr<const Mapping> copy(const InputFile& file);
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping();

  std::span<const std::byte> bytes() const { return {address_, size_}; }

 private:
  Mapping(const std::byte* address, std::size_t size) : address_(address), size_(size) {}
  const std::byte* address_;
  std::size_t size_;
};

/// Writes a new file in place of `path` atomically: the bytes go to a
/// temporary file in the same directory, which commit() flushes to disk and
/// renames over `path`. Until then `path` is untouched; a writer destroyed
/// without commit() (an exception) deletes its temporary file.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(const std::filesystem::path& path);
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  ~AtomicFileWriter();

  void write(const void* data, std::size_t size);
  void commit();

 private:
  void flush();
  void write_through(const void* data, std::size_t size);

  std::filesystem::path path_;
  std::filesystem::path temporary_;
  int descriptor_ = -1;
  std::vector<std::byte> buffer_;
};

}  // namespace fp::safetensors::detail
