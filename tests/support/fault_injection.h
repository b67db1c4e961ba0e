// Fault injection for the tests of what the library does when the system
// fails it: a full disk, a read-only folder, a file changed under a reader.
//
// fault_injection.cpp defines the C library's open, write, fsync, close,
// rename and mmap (and their 64-bit and *at names). Linked into a test
// program (CMake: target fp_fault_injection, with ENABLE_EXPORTS on the
// program), those definitions come first in the process's symbol lookup, so
// flash_powder's libraries call them; they pass every call on to the C
// library's own function unless a fault is armed for the file the call is
// about (its path contains the armed text). This is LD_PRELOAD interposition
// without LD_PRELOAD: it needs no environment, so it works unchanged under
// valgrind and the sanitizers, and as root, where a read-only folder would
// not stop a write.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace fp_test::faults {

/// The calls that can fail or be hooked.
enum class Call { Open, Write, Fsync, Close, Rename, Mmap };

struct Fault {
  Call call = Call::Write;
  /// The fault applies to files whose path contains this text (for Rename:
  /// either path); "/proc/self/fd/N" names an open file's path for the calls
  /// that take a descriptor.
  std::string path_part;
  /// errno of the failing call: ENOSPC (a full disk), EROFS (a read-only
  /// file system), EIO, EACCES, ...
  int error = 0;
  /// Write only: this many bytes are written (the last write partly) before
  /// writes fail, as a disk filling up does.
  std::size_t after_bytes = 0;
};

/// While one lives, the calls it names fail; it disarms when it goes.
/// One at a time (not nested), on one thread at a time.
class Injected {
 public:
  explicit Injected(Fault fault);
  ~Injected();
  Injected(const Injected&) = delete;
  Injected& operator=(const Injected&) = delete;
  /// How many calls have failed so far.
  int failures() const;
};

/// Runs `hook` once, just before the next call of `call` about a file whose
/// path contains `path_part` (the call itself then goes ahead). For changing a
/// file while a reader is between two steps. Cleared after it ran, or by
/// clear_hook().
void before_next(Call call, std::string path_part, std::function<void()> hook);
void clear_hook();

}  // namespace fp_test::faults
