// fp::Error, the one exception type of flash_powder, and the check that turns
// a failed C shim call into one.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fp {

/// Every failure in flash_powder throws this (or a type derived from it).
/// what() names the operation and carries libtorch's own message, without
/// its C++ backtrace.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

namespace abi {

/// The status every C shim function returns: 0 is success.
using Status = std::int32_t;

/// Throws fp::Error("<what>: <libtorch's message>") when `status` is not 0.
/// The message is read from libtorch's thread-local error slot (torch 2.13+);
/// older torch prints it to stderr instead, and the Error says so.
inline void check(Status status, std::string_view what);

/// The most recent libtorch error message of this thread, without backtrace,
/// or an explanation when the running torch cannot tell (before 2.13).
std::string last_torch_error();

[[noreturn]] void throw_torch_error(std::string_view what);

inline void check(Status status, std::string_view what) {
  if (status != 0) throw_torch_error(what);
}

}  // namespace abi
}  // namespace fp
