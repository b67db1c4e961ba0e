// fp::Error, the one exception type of flash_powder: bad input of any kind
// (shape, dtype, device, index, file, format) throws it with a message a user
// can act on.
#pragma once

#include <stdexcept>
#include <string>

namespace fp {

/// Every failure in flash_powder throws this (or a type derived from it).
/// what() names the operation and carries libtorch's own message, without
/// its C++ backtrace.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace fp
