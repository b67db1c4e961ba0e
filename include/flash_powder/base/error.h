// fp::Error, the one exception type of flash_powder: bad input of any kind
// (shape, dtype, device, index, file, format) throws it with a message a user
// can act on, and a code a program can act on.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fp {

/// What kind of failure an fp::Error reports. Programs decide by the code,
/// never by the message, whose words may change between releases (libtorch's
/// part of it with every torch release).
enum class ErrorCode : std::uint8_t {
  /// A value flash_powder checked and refused before running anything: a
  /// shape, dtype, device, index, option or argument count.
  BadArgument,
  /// libtorch refused the call or failed running it; what() carries its message.
  TorchError,
  /// No op or overload of that name among the schemas flash_powder knows
  /// (fp::dispatch, fp::abi::find_schema).
  OpNotFound,
  /// The loaded torch lacks what the call needs (an op added in a later
  /// release or removed in an earlier one, a C function of a newer release).
  UnsupportedByTorch,
  /// Something libtorch's stable ABI cannot carry (a Scalar argument, a
  /// Storage), or that flash_powder does not implement.
  Unsupported,
  /// A write that the borrow rules forbid while a view lives (fp::BorrowError).
  Borrow,
  /// The file system refused: open, read, write, rename, map, a full disk.
  Io,
  /// Bytes that are not a valid file of their kind: a safetensors header, an
  /// image, an AOTInductor package.
  Format,
  /// Memory ran out (libtorch's own allocation failures are TorchError).
  OutOfMemory,
};

/// The enumerator's name, e.g. "BadArgument".
std::string_view name(ErrorCode code) noexcept;
/// Writes name(code).
std::ostream& operator<<(std::ostream& out, ErrorCode code);

/// Every failure in flash_powder throws this (or a type derived from it).
/// what() names the operation and carries libtorch's own message, without
/// its C++ backtrace; code() says what kind of failure it is.
class Error : public std::runtime_error {
 public:
  /// An error of kind `code`; `message` is what what() returns.
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}

  /// What kind of failure this is: decide by it, never by the message's words.
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace fp
