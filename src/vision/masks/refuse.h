// The error every fp::vision::masks function throws for bad input.
#pragma once

#include <string>

#include "flash_powder/base/error.h"

namespace fp::vision::masks::detail {

/// fp::Error (BadArgument) "fp::vision::masks::<function>: <what>".
[[noreturn]] inline void refuse(const char* function, const std::string& what) {
  throw Error(ErrorCode::BadArgument, std::string("fp::vision::masks::") + function + ": " + what);
}

}  // namespace fp::vision::masks::detail
