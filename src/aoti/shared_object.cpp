#include "shared_object.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "flash_powder/base/error.h"
#include "messages.h"

namespace fp::aoti::detail {
namespace {

// Writes the image into a memfd; the caller closes the descriptor.
int memory_file(std::span<const std::byte> image, const std::string& source) {
  const int descriptor = ::memfd_create("fp_aoti_model.so", MFD_CLOEXEC);
  if (descriptor < 0)
    throw Error(message_prefix(source) + "memfd_create failed: " + std::strerror(errno));
  std::size_t written = 0;
  while (written < image.size()) {
    const ssize_t got = ::write(descriptor, image.data() + written, image.size() - written);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      const int error = errno;
      ::close(descriptor);
      throw Error(message_prefix(source) + "cannot write the model library to memory: " +
                  std::strerror(error));
    }
    written += static_cast<std::size_t>(got);
  }
  return descriptor;
}

}  // namespace

SharedObject::SharedObject(std::span<const std::byte> image, const std::string& source) {
  const int descriptor = memory_file(image, source);
  // dlopen maps the file through /proc; the descriptor can close right after.
  const std::string path = "/proc/self/fd/" + std::to_string(descriptor);
  handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  const char* error = handle_ == nullptr ? ::dlerror() : nullptr;
  ::close(descriptor);
  if (handle_ == nullptr)
    throw Error(message_prefix(source) + "cannot load the model library: " +
                (error != nullptr ? error : "unknown dlopen error"));
}

SharedObject::~SharedObject() {
  if (handle_ != nullptr) ::dlclose(handle_);
}

void* SharedObject::find(const char* name) const noexcept {
  return ::dlsym(handle_, name);
}

bool process_defines(const std::string& name) noexcept {
  return ::dlsym(RTLD_DEFAULT, name.c_str()) != nullptr;
}

}  // namespace fp::aoti::detail
