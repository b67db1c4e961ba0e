// Whole-file reads and atomic writes with POSIX calls, so that every failure
// has the system's reason and the path in its message.
#include "file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "messages.h"

namespace fp::image::detail {

namespace {

/// Closes a descriptor on every path out.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

std::string reason() {
  return std::strerror(errno);
}

}  // namespace

std::vector<std::uint8_t> read_whole_file(const std::filesystem::path& path, const char* function) {
  Descriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (file.get() < 0) fail(ErrorCode::Io, function, path.string(), "cannot open: " + reason());
  struct stat info {};
  if (::fstat(file.get(), &info) != 0)
    fail(ErrorCode::Io, function, path.string(), "cannot stat: " + reason());
  if (!S_ISREG(info.st_mode)) fail(ErrorCode::Io, function, path.string(), "not a regular file");
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(info.st_size));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(file.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(ErrorCode::Io, function, path.string(), "cannot read: " + reason());
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  bytes.resize(done);
  return bytes;
}

void write_atomically(const std::filesystem::path& path, std::span<const std::uint8_t> bytes,
                      const char* function) {
  std::string temporary = path.string() + ".tmp-XXXXXX";
  Descriptor file(::mkstemp(temporary.data()));
  if (file.get() < 0)
    fail(ErrorCode::Io, function, path.string(), "cannot create a temporary file: " + reason());
  bool committed = false;
  struct Cleanup {
    const std::string& name;
    const bool& committed;
    ~Cleanup() {
      if (!committed) ::unlink(name.c_str());
    }
  } cleanup{temporary, committed};
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(file.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(ErrorCode::Io, function, path.string(), "cannot write: " + reason());
    done += static_cast<std::size_t>(n);
  }
  // mkstemp makes the file 0600; an image is as readable as any new file.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(file.get(), 0666 & ~mask);
  if (::fsync(file.get()) != 0)
    fail(ErrorCode::Io, function, path.string(), "cannot flush: " + reason());
  if (::close(file.release()) != 0)
    fail(ErrorCode::Io, function, path.string(), "cannot close: " + reason());
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    fail(ErrorCode::Io, function, path.string(), "cannot replace the file: " + reason());
  }
  committed = true;
}

}  // namespace fp::image::detail
