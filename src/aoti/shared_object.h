// A shared object loaded from bytes, leaving no file behind.
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace fp::aoti::detail {

/// A library loaded with dlopen(RTLD_NOW | RTLD_LOCAL) from an anonymous
/// in-memory file (memfd_create): nothing is written to disk, and the model
/// library's own C++ symbols stay private to it, so two models loaded into
/// one process cannot bind to each other's. Unloaded (dlclose) on destruction.
///
/// glibc knows a loaded library by its path, here "/proc/self/fd/<N>": while
/// a library is loaded its descriptor stays open, so no other library gets
/// that path. Inductor's libraries define STB_GNU_UNIQUE symbols (libstdc++'s
/// inline statics), which make glibc keep them loaded after dlclose; their
/// descriptor then stays open for the life of the process (one per model
/// opened), or the next model loaded under the same path would silently be
/// the old one.
class SharedObject {
 public:
  /// Throws fp::Error with dlerror()'s message when the library cannot load.
  SharedObject(std::span<const std::byte> image, const std::string& source);
  SharedObject(const SharedObject&) = delete;
  SharedObject& operator=(const SharedObject&) = delete;
  ~SharedObject();

  /// The address of `name`, or nullptr when the library does not define it.
  void* find(const char* name) const noexcept;

 private:
  void* handle_ = nullptr;
  int descriptor_ = -1;
  std::string path_;
};

/// True when `name` resolves in the process's global scope, where the model
/// library's imports bind (the loaded libtorch).
bool process_defines(const std::string& name) noexcept;

}  // namespace fp::aoti::detail
