#include "zip_archive.h"

#include <zip.h>

#include <limits>
#include <utility>

#include "flash_powder/base/error.h"
#include "messages.h"

namespace fp::aoti::detail {
namespace {

[[noreturn]] void fail_zip(const std::string& source, const std::string& what, zip_error_t* error) {
  throw Error(ErrorCode::Format, message_prefix(source) + what + ": " + zip_error_strerror(error));
}

// libzip's own checks on open: the central directory must be consistent
// with the local headers and the archive size (truncation is caught here).
constexpr int kOpenFlags = ZIP_RDONLY | ZIP_CHECKCONS;

}  // namespace

void ZipArchive::Closer::operator()(zip* archive) const noexcept {
  zip_discard(archive);
}

ZipArchive::ZipArchive(zip* archive, std::string source)
    : archive_(archive), source_(std::move(source)) {
  const zip_int64_t count = zip_get_num_entries(archive, 0);
  if (count < 0)
    throw Error(ErrorCode::Format, message_prefix(source_) + "cannot list the zip entries");
  entries_.reserve(static_cast<std::size_t>(count));
  for (zip_int64_t i = 0; i < count; ++i) {
    zip_stat_t stat;
    zip_stat_init(&stat);
    if (zip_stat_index(archive, static_cast<zip_uint64_t>(i), 0, &stat) != 0)
      fail_zip(source_, "cannot read zip entry " + std::to_string(i), zip_get_error(archive));
    if (!(stat.valid & ZIP_STAT_NAME) || !(stat.valid & ZIP_STAT_SIZE))
      throw Error(ErrorCode::Format, message_prefix(source_) + "zip entry " + std::to_string(i) +
                                         " has no name or size");
    entries_.push_back({stat.name, stat.size, static_cast<std::uint64_t>(i)});
  }
}

ZipArchive ZipArchive::open(const std::filesystem::path& path) {
  int code = 0;
  zip* archive = zip_open(path.c_str(), kOpenFlags, &code);
  if (archive == nullptr) {
    zip_error_t error;
    zip_error_init_with_code(&error, code);
    const std::string text = zip_error_strerror(&error);
    zip_error_fini(&error);
    throw Error(ErrorCode::Io, message_prefix(path.string()) +
                                   "cannot open the package as a zip archive: " + text);
  }
  return ZipArchive(archive, path.string());
}

ZipArchive ZipArchive::open(std::span<const std::byte> bytes, std::string source) {
  // libzip would read no bytes as an empty archive.
  if (bytes.empty())
    throw Error(ErrorCode::Format, message_prefix(source) + "the package is empty (0 bytes)");
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* buffer = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &error);
  if (buffer == nullptr) {
    const std::string text = zip_error_strerror(&error);
    zip_error_fini(&error);
    throw Error(ErrorCode::Io, message_prefix(source) + "cannot read the bytes: " + text);
  }
  zip* archive = zip_open_from_source(buffer, kOpenFlags, &error);
  if (archive == nullptr) {
    zip_source_free(buffer);
    const std::string text = zip_error_strerror(&error);
    zip_error_fini(&error);
    throw Error(ErrorCode::Format,
                message_prefix(source) + "cannot open the package as a zip archive: " + text);
  }
  zip_error_fini(&error);
  return ZipArchive(archive, std::move(source));
}

void ZipArchive::read_into(const ZipEntry& entry, void* out) const {
  zip_file_t* file = zip_fopen_index(archive_.get(), entry.index, 0);
  if (file == nullptr)
    fail_zip(source_, "cannot open entry " + in_quotes(entry.name), zip_get_error(archive_.get()));
  const zip_int64_t got = zip_fread(file, out, entry.size);
  std::string problem;
  if (got < 0) {
    problem = zip_error_strerror(zip_file_get_error(file));
  } else if (static_cast<std::uint64_t>(got) != entry.size) {
    problem = "the entry is truncated (" + std::to_string(got) + " of " +
              std::to_string(entry.size) + " bytes)";
  } else {
    // libzip compares the CRC when a read finds the end of the entry, which
    // reading exactly its size does not: read once more.
    char beyond;
    const zip_int64_t more = zip_fread(file, &beyond, 1);
    if (more < 0) problem = zip_error_strerror(zip_file_get_error(file));
    if (more > 0) problem = "the entry is longer than its recorded size";
  }
  zip_fclose(file);
  if (!problem.empty())
    throw Error(ErrorCode::Format, message_prefix(source_) + "cannot read entry " +
                                       in_quotes(entry.name) + ": " + problem);
}

std::vector<std::byte> ZipArchive::read(const ZipEntry& entry) const {
  std::vector<std::byte> bytes(entry.size);
  if (entry.size > 0) read_into(entry, bytes.data());
  return bytes;
}

std::string ZipArchive::read_text(const ZipEntry& entry) const {
  std::string text(entry.size, '\0');
  if (entry.size > 0) read_into(entry, text.data());
  return text;
}

}  // namespace fp::aoti::detail
