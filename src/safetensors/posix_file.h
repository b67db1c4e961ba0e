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

/// A file open for reading; closed on destruction.
class InputFile {
 public:
  /// Throws fp::Error naming `path` and the system's reason.
  explicit InputFile(const std::filesystem::path& path);
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  std::uint64_t size() const { return size_; }
  /// Reads exactly `size` bytes at `offset`; throws if the file ends first.
  void read(void* out, std::size_t size, std::uint64_t offset) const;
  int descriptor() const { return descriptor_; }

 private:
  std::string source_;
  int descriptor_ = -1;
  std::uint64_t size_ = 0;
};

/// A whole file mapped read-only and private; unmapped when the last owner
/// (a MappedFile or a tensor viewing it) lets go.
class Mapping {
 public:
  /// Throws fp::Error when the file cannot be opened or mapped. An empty
  /// file gives an empty mapping.
  static std::shared_ptr<const Mapping> map(const std::filesystem::path& path);
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
