// The check that turns a failed C shim call into an fp::Error (base/error.h)
// with libtorch's message.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "flash_powder/base/error.h"

namespace fp::abi {

/// The status every C shim function returns: 0 is success.
using Status = std::int32_t;

/// Throws fp::Error("<what>: <libtorch's message>") when `status` is not 0.
/// The message is read from libtorch's thread-local error slot (torch 2.13+);
/// older torch prints it to stderr instead, and the Error says so.
inline void check(Status status, std::string_view what);

/// The most recent libtorch error message of this thread, without backtrace,
/// or an explanation when the running torch cannot tell (before 2.13).
std::string last_torch_error();

/// Throws fp::Error(ErrorCode::TorchError) with `what`, then ": ", then last_torch_error().
[[noreturn]] void throw_torch_error(std::string_view what);

inline void check(Status status, std::string_view what) {
  if (status != 0) throw_torch_error(what);
}

}  // namespace fp::abi
