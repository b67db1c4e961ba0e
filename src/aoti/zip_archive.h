// A read-only zip archive (libzip), the container format of `.pt2` packages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

struct zip;

namespace fp::aoti::detail {

/// One entry of the archive: its name and uncompressed size.
struct ZipEntry {
  std::string name;
  std::uint64_t size = 0;
  std::uint64_t index = 0;
};

/// A zip archive opened with libzip, from a file or from bytes the caller
/// keeps alive. Every failure (not a zip, truncated, bad CRC, an entry larger
/// than the archive) throws fp::Error naming `source`.
class ZipArchive {
 public:
  static ZipArchive open(const std::filesystem::path& path);
  /// `bytes` must outlive the archive (libzip reads them in place).
  static ZipArchive open(std::span<const std::byte> bytes, std::string source);

  const std::vector<ZipEntry>& entries() const { return entries_; }
  /// The whole uncompressed entry, CRC-checked by libzip.
  std::vector<std::byte> read(const ZipEntry& entry) const;
  /// Same, as text.
  std::string read_text(const ZipEntry& entry) const;
  const std::string& source() const { return source_; }

 private:
  struct Closer {
    void operator()(zip* archive) const noexcept;
  };
  ZipArchive(zip* archive, std::string source);
  void read_into(const ZipEntry& entry, void* out) const;

  std::unique_ptr<zip, Closer> archive_;
  std::string source_;
  std::vector<ZipEntry> entries_;
};

}  // namespace fp::aoti::detail
