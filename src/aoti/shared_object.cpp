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
    throw Error(ErrorCode::Io,
                message_prefix(source) + "memfd_create failed: " + std::strerror(errno));
  std::size_t written = 0;
  while (written < image.size()) {
    const ssize_t got = ::write(descriptor, image.data() + written, image.size() - written);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      const int error = errno;
      ::close(descriptor);
      throw Error(ErrorCode::Io,
                  message_prefix(source) +
                      "cannot write the model library to memory: " + std::strerror(error));
    }
    written += static_cast<std::size_t>(got);
  }
  return descriptor;
}

}  // namespace

SharedObject::SharedObject(std::span<const std::byte> image, const std::string& source)
    : descriptor_(memory_file(image, source)),
      path_("/proc/self/fd/" + std::to_string(descriptor_)) {
  // A path glibc already knows would return that library instead of loading this one.
  if (void* old = ::dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD)) {
    ::dlclose(old);
    ::close(descriptor_);
    throw Error(ErrorCode::Io,
                message_prefix(source) + "cannot load the model library: " + path_ +
                    " already names another library (a descriptor was closed by someone else)");
  }
  handle_ = ::dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* error = ::dlerror();
    const std::string text = error != nullptr ? error : "unknown dlopen error";
    ::close(descriptor_);
    throw Error(ErrorCode::Format,
                message_prefix(source) + "cannot load the model library: " + text);
  }
}

SharedObject::~SharedObject() {
  ::dlclose(handle_);
  void* still = ::dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (still == nullptr) {
    ::close(descriptor_);
    return;
  }
  ::dlclose(still);  // kept loaded (NODELETE): keep its path taken, see the class comment
}

void* SharedObject::find(const char* name) const noexcept {
  return ::dlsym(handle_, name);
}

bool process_defines(const std::string& name) noexcept {
  return ::dlsym(RTLD_DEFAULT, name.c_str()) != nullptr;
}

}  // namespace fp::aoti::detail
