// The C library functions of fault_injection.h, defined in the test program
// so that every library in the process calls these. Unarmed, each is one
// atomic load and a call of the C library's own function (found with
// dlsym(RTLD_NEXT)). Nothing here may depend on a constructor having run:
// libraries call open() and mmap() while they are loaded, before main().
// The definitions below must be the plain functions, not fortified inline wrappers.
#undef _FORTIFY_SOURCE

#include "support/fault_injection.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <optional>
#include <utility>

namespace fp_test::faults {
namespace {

// True while a fault or a hook is set: the only state the unarmed path reads.
constinit std::atomic<bool> active{false};

struct Hook {
  Call call;
  std::string path_part;
  std::function<void()> run;
};

struct State {
  std::mutex mutex;
  std::optional<Fault> fault;
  std::size_t written = 0;
  int failures = 0;
  std::optional<Hook> hook;
};

State& state() {
  static State instance;
  return instance;
}

void update_active(const State& s) {
  active.store(s.fault.has_value() || s.hook.has_value());
}

template <class Function>
Function real(const char* name) {
  return reinterpret_cast<Function>(::dlsym(RTLD_NEXT, name));
}

std::string path_of(int descriptor) {
  char link[64];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", descriptor);
  char target[PATH_MAX];
  const ssize_t length = ::readlink(link, target, sizeof target - 1);
  return length > 0 ? std::string(target, static_cast<std::size_t>(length)) : std::string();
}

bool matches(const std::string& path, const std::string& part) {
  return !path.empty() && path.find(part) != std::string::npos;
}

/// Runs the hook set for `call` on `path`, if any (outside the lock: it may
/// call the functions defined here).
void run_hook(Call call, const std::string& path, const std::string* other_path = nullptr) {
  std::function<void()> run;
  {
    State& s = state();
    const std::lock_guard lock(s.mutex);
    if (!s.hook || s.hook->call != call) return;
    if (!matches(path, s.hook->path_part) &&
        !(other_path != nullptr && matches(*other_path, s.hook->path_part)))
      return;
    run = std::move(s.hook->run);
    s.hook.reset();
    update_active(s);
  }
  run();
}

/// The errno `call` on `path` must fail with, or 0 to let it through.
int failure(Call call, const std::string& path, const std::string* other_path = nullptr) {
  State& s = state();
  const std::lock_guard lock(s.mutex);
  if (!s.fault || s.fault->call != call) return 0;
  if (!matches(path, s.fault->path_part) &&
      !(other_path != nullptr && matches(*other_path, s.fault->path_part)))
    return 0;
  ++s.failures;
  return s.fault->error;
}

/// For a write of `size` bytes to `path`: how many may go through (all when
/// no fault applies), or nullopt with errno set when it must fail.
std::optional<std::size_t> allowed_write(const std::string& path, std::size_t size) {
  State& s = state();
  const std::lock_guard lock(s.mutex);
  if (!s.fault || s.fault->call != Call::Write || !matches(path, s.fault->path_part)) return size;
  if (s.written >= s.fault->after_bytes) {
    ++s.failures;
    errno = s.fault->error;
    return std::nullopt;
  }
  const std::size_t allowed = std::min(size, s.fault->after_bytes - s.written);
  s.written += allowed;
  return allowed;
}

template <class Open>
int open_with(Open&& really_open, const char* path) {
  if (active.load() && path != nullptr) {
    const std::string name = path;
    run_hook(Call::Open, name);
    if (const int error = failure(Call::Open, name)) {
      errno = error;
      return -1;
    }
  }
  return really_open();
}

bool takes_mode(int flags) {
  return (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE;
}

}  // namespace

Injected::Injected(Fault fault) {
  State& s = state();
  const std::lock_guard lock(s.mutex);
  s.fault = std::move(fault);
  s.written = 0;
  s.failures = 0;
  update_active(s);
}

Injected::~Injected() {
  State& s = state();
  const std::lock_guard lock(s.mutex);
  s.fault.reset();
  update_active(s);
}

int Injected::failures() const {
  State& s = state();
  const std::lock_guard lock(s.mutex);
  return s.failures;
}

void before_next(Call call, std::string path_part, std::function<void()> hook) {
  State& s = state();
  const std::lock_guard lock(s.mutex);
  s.hook = Hook{call, std::move(path_part), std::move(hook)};
  update_active(s);
}

void clear_hook() {
  State& s = state();
  const std::lock_guard lock(s.mutex);
  s.hook.reset();
  update_active(s);
}

}  // namespace fp_test::faults

// --- the C library's functions ------------------------------------------------------

using fp_test::faults::Call;
namespace faults = fp_test::faults;

extern "C" {

int open(const char* path, int flags, ...) {
  mode_t mode = 0;
  if (faults::takes_mode(flags)) {
    va_list arguments;
    va_start(arguments, flags);
    mode = static_cast<mode_t>(va_arg(arguments, unsigned));
    va_end(arguments);
  }
  static const auto next = faults::real<int (*)(const char*, int, ...)>("open");
  return faults::open_with([&] { return next(path, flags, mode); }, path);
}

int open64(const char* path, int flags, ...) {
  mode_t mode = 0;
  if (faults::takes_mode(flags)) {
    va_list arguments;
    va_start(arguments, flags);
    mode = static_cast<mode_t>(va_arg(arguments, unsigned));
    va_end(arguments);
  }
  static const auto next = faults::real<int (*)(const char*, int, ...)>("open64");
  return faults::open_with([&] { return next(path, flags, mode); }, path);
}

int openat(int directory, const char* path, int flags, ...) {
  mode_t mode = 0;
  if (faults::takes_mode(flags)) {
    va_list arguments;
    va_start(arguments, flags);
    mode = static_cast<mode_t>(va_arg(arguments, unsigned));
    va_end(arguments);
  }
  static const auto next = faults::real<int (*)(int, const char*, int, ...)>("openat");
  return faults::open_with([&] { return next(directory, path, flags, mode); }, path);
}

int openat64(int directory, const char* path, int flags, ...) {
  mode_t mode = 0;
  if (faults::takes_mode(flags)) {
    va_list arguments;
    va_start(arguments, flags);
    mode = static_cast<mode_t>(va_arg(arguments, unsigned));
    va_end(arguments);
  }
  static const auto next = faults::real<int (*)(int, const char*, int, ...)>("openat64");
  return faults::open_with([&] { return next(directory, path, flags, mode); }, path);
}

ssize_t write(int descriptor, const void* data, size_t size) {
  static const auto next = faults::real<ssize_t (*)(int, const void*, size_t)>("write");
  if (faults::active.load() && descriptor > 2) {
    const std::string path = faults::path_of(descriptor);
    faults::run_hook(Call::Write, path);
    const std::optional<std::size_t> allowed = faults::allowed_write(path, size);
    if (!allowed) return -1;
    size = *allowed;
  }
  return next(descriptor, data, size);
}

int fsync(int descriptor) {
  static const auto next = faults::real<int (*)(int)>("fsync");
  if (faults::active.load()) {
    const std::string path = faults::path_of(descriptor);
    faults::run_hook(Call::Fsync, path);
    if (const int error = faults::failure(Call::Fsync, path)) {
      errno = error;
      return -1;
    }
  }
  return next(descriptor);
}

int fdatasync(int descriptor) {
  static const auto next = faults::real<int (*)(int)>("fdatasync");
  if (faults::active.load()) {
    const std::string path = faults::path_of(descriptor);
    faults::run_hook(Call::Fsync, path);
    if (const int error = faults::failure(Call::Fsync, path)) {
      errno = error;
      return -1;
    }
  }
  return next(descriptor);
}

int close(int descriptor) {
  static const auto next = faults::real<int (*)(int)>("close");
  if (faults::active.load() && descriptor > 2) {
    const std::string path = faults::path_of(descriptor);
    faults::run_hook(Call::Close, path);
    if (const int error = faults::failure(Call::Close, path)) {
      next(descriptor);  // as on Linux: the descriptor is gone even when close fails
      errno = error;
      return -1;
    }
  }
  return next(descriptor);
}

int rename(const char* from, const char* to) noexcept {
  static const auto next = faults::real<int (*)(const char*, const char*)>("rename");
  if (faults::active.load() && from != nullptr && to != nullptr) {
    const std::string old_path = from, new_path = to;
    faults::run_hook(Call::Rename, new_path, &old_path);
    if (const int error = faults::failure(Call::Rename, new_path, &old_path)) {
      errno = error;
      return -1;
    }
  }
  return next(from, to);
}

void* mmap(void* address, size_t size, int protection, int flags, int descriptor,
           off_t offset) noexcept {
  static const auto next = faults::real<void* (*)(void*, size_t, int, int, int, off_t)>("mmap");
  if (faults::active.load() && descriptor >= 0) {
    const std::string path = faults::path_of(descriptor);
    faults::run_hook(Call::Mmap, path);
    if (const int error = faults::failure(Call::Mmap, path)) {
      errno = error;
      return MAP_FAILED;
    }
  }
  return next(address, size, protection, flags, descriptor, offset);
}

void* mmap64(void* address, size_t size, int protection, int flags, int descriptor,
             off_t offset) noexcept {
  return mmap(address, size, protection, flags, descriptor, offset);
}

}  // extern "C"
