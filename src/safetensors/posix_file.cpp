#include "posix_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

#include "flash_powder/abi/error.h"
#include "messages.h"

namespace fp::safetensors::detail {
namespace {

[[noreturn]] void fail_system(std::string_view source, const std::string& what, int error) {
  throw Error(ErrorCode::Io, message_prefix(source) + what + ": " + std::strerror(error));
}

int open_or_throw(const std::filesystem::path& path, int flags, const char* what) {
  int descriptor;
  do {
    descriptor = ::open(path.c_str(), flags | O_CLOEXEC, 0666);
  } while (descriptor < 0 && errno == EINTR);
  if (descriptor < 0) fail_system(path.string(), what, errno);
  return descriptor;
}

struct stat status_of(int descriptor, const std::string& source) {
  struct stat status {};
  if (::fstat(descriptor, &status) != 0) fail_system(source, "cannot stat the file", errno);
  if (!S_ISREG(status.st_mode))
    throw Error(ErrorCode::Io, message_prefix(source) + "not a regular file");
  return status;
}

}  // namespace

// --- InputFile ------------------------------------------------------------------

InputFile::InputFile(const std::filesystem::path& path)
    : source_(path.string()), descriptor_(open_or_throw(path, O_RDONLY, "cannot open the file")) {
  try {
    const struct stat status = status_of(descriptor_, source_);
    size_ = static_cast<std::uint64_t>(status.st_size);
    modified_seconds_ = status.st_mtim.tv_sec;
    modified_nanoseconds_ = status.st_mtim.tv_nsec;
  } catch (...) {
    ::close(descriptor_);
    throw;
  }
}

void InputFile::check_unchanged() const {
  const struct stat status = status_of(descriptor_, source_);
  const auto size = static_cast<std::uint64_t>(status.st_size);
  if (size != size_ || status.st_mtim.tv_sec != modified_seconds_ ||
      status.st_mtim.tv_nsec != modified_nanoseconds_) {
    throw Error(ErrorCode::Io, message_prefix(source_) +
                                   "the file changed while it was being opened (" +
                                   (size != size_ ? "its size went from " + std::to_string(size_) +
                                                        " to " + std::to_string(size) + " bytes"
                                                  : std::string("it was written")) +
                                   "): another program is writing it; open it when it is complete");
  }
}

InputFile::~InputFile() {
  ::close(descriptor_);
}

void InputFile::read(void* out, std::size_t size, std::uint64_t offset) const {
  auto* cursor = static_cast<char*>(out);
  while (size > 0) {
    const ssize_t got = ::pread(descriptor_, cursor, size, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail_system(source_, "cannot read the file", errno);
    if (got == 0) {
      throw Error(ErrorCode::Format, message_prefix(source_) + "the file ended at byte " +
                                         std::to_string(offset) +
                                         " (was it changed while being read?)");
    }
    cursor += got;
    size -= static_cast<std::size_t>(got);
    offset += static_cast<std::uint64_t>(got);
  }
}

// --- Mapping ----------------------------------------------------------------------

std::shared_ptr<const Mapping> Mapping::map(const InputFile& file) {
  if (file.size() == 0) return std::shared_ptr<const Mapping>(new Mapping(nullptr, 0));
  // Read-only: a view of a mapping must never be written. Private: changes
  // others make to the file after this call are not promised to show.
  void* address = ::mmap(nullptr, file.size(), PROT_READ, MAP_PRIVATE, file.descriptor(), 0);
  if (address == MAP_FAILED) fail_system(file.source(), "cannot map the file", errno);
  return std::shared_ptr<const Mapping>(
      new Mapping(static_cast<const std::byte*>(address), file.size()));
}

std::shared_ptr<const Mapping> Mapping::copy(const InputFile& file) {
  if (file.size() == 0) return std::shared_ptr<const Mapping>(new Mapping(nullptr, 0));
  // Anonymous pages rather than the heap: aligned as a mapping of the file
  // is (so the same tensors are viewed in place), made read-only like it,
  // and handed back to the system whole when the last view goes.
  void* address =
      ::mmap(nullptr, file.size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (address == MAP_FAILED) {
    const int error = errno;
    throw Error(error == ENOMEM ? ErrorCode::OutOfMemory : ErrorCode::Io,
                message_prefix(file.source()) + "cannot allocate " + std::to_string(file.size()) +
                    " bytes to copy the file into: " + std::strerror(error));
  }
  // Owned from here, so that a failing read below frees the memory.
  std::shared_ptr<const Mapping> copy(
      new Mapping(static_cast<const std::byte*>(address), file.size()));
  file.read(address, file.size(), 0);
  if (::mprotect(address, file.size(), PROT_READ) != 0)
    fail_system(file.source(), "cannot make the copy read-only", errno);
  return copy;
}

Mapping::~Mapping() {
  if (address_ != nullptr) ::munmap(const_cast<std::byte*>(address_), size_);
}

// --- AtomicFileWriter -------------------------------------------------------------

namespace {

constexpr std::size_t buffer_capacity = std::size_t{1} << 20;

/// A name in the directory of `path` that no other writer (thread or process) uses.
std::filesystem::path temporary_name(const std::filesystem::path& path, unsigned attempt) {
  static std::atomic<unsigned> counter{0};
  const std::string name = "." + path.filename().string() + ".tmp." + std::to_string(::getpid()) +
                           "." + std::to_string(counter.fetch_add(1)) + "." +
                           std::to_string(attempt);
  return path.parent_path() / name;
}

}  // namespace

AtomicFileWriter::AtomicFileWriter(const std::filesystem::path& path) : path_(path) {
  if (path.filename().empty())
    throw Error(ErrorCode::BadArgument, message_prefix(path.string()) + "not a file name");
  for (unsigned attempt = 0;; ++attempt) {
    temporary_ = temporary_name(path, attempt);
    // 0666 minus the umask: the permissions a plainly created file gets.
    descriptor_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (descriptor_ >= 0) break;
    if (errno != EEXIST && errno != EINTR) {
      fail_system(path.string(), "cannot create a temporary file in its directory", errno);
    }
  }
  buffer_.reserve(buffer_capacity);
}

AtomicFileWriter::~AtomicFileWriter() {
  if (descriptor_ >= 0) {
    ::close(descriptor_);
    ::unlink(temporary_.c_str());
  }
}

// Small pieces (the header, small tensors) are gathered into one write;
// large ones go straight to the file without a copy.
void AtomicFileWriter::write(const void* data, std::size_t size) {
  if (buffer_.size() + size > buffer_capacity) flush();
  if (size >= buffer_capacity) {
    write_through(data, size);
    return;
  }
  const auto* bytes = static_cast<const std::byte*>(data);
  buffer_.insert(buffer_.end(), bytes, bytes + size);
}

void AtomicFileWriter::flush() {
  write_through(buffer_.data(), buffer_.size());
  buffer_.clear();
}

void AtomicFileWriter::write_through(const void* data, std::size_t size) {
  const auto* cursor = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t written = ::write(descriptor_, cursor, size);
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) fail_system(path_.string(), "cannot write the temporary file", errno);
    cursor += written;
    size -= static_cast<std::size_t>(written);
  }
}

void AtomicFileWriter::commit() {
  flush();
  // On disk before the rename: a crash must leave the old file or the whole
  // new one, never a renamed file whose data never arrived.
  if (::fsync(descriptor_) != 0) fail_system(path_.string(), "cannot flush the file", errno);
  const int descriptor = std::exchange(descriptor_, -1);
  if (::close(descriptor) != 0) {
    const int error = errno;
    ::unlink(temporary_.c_str());
    fail_system(path_.string(), "cannot close the file", error);
  }
  if (::rename(temporary_.c_str(), path_.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary_.c_str());
    fail_system(path_.string(), "cannot rename the temporary file over it", error);
  }
}

}  // namespace fp::safetensors::detail
