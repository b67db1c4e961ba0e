// The error every fp::functional function throws for a bad argument: one
// definition, as the unity build compiles several of their files together.
#pragma once

#include <string>

#include "flash_powder/base/error.h"

namespace fp::functional {

/// Throws fp::Error (BadArgument) "fp::functional::<function>: <message>".
[[noreturn]] inline void fail(const char* function, const std::string& message) {
  throw Error(ErrorCode::BadArgument, std::string("fp::functional::") + function + ": " + message);
}

}  // namespace fp::functional
