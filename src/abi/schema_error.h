// The one form of every error about a call measured against an op's schema,
// for the abi layer and the layers above it.
#pragma once

#include <string_view>

#include "flash_powder/base/error.h"

namespace fp::abi {

/// Throws fp::Error(code, "<op>: <problem>; the schema is <schema>").
[[noreturn]] void fail_against_schema(ErrorCode code, std::string_view op, std::string_view problem,
                                      std::string_view schema);

}  // namespace fp::abi
