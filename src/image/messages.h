// Error messages of the image layer (internal).
#pragma once

#include <string>
#include <string_view>

#include "flash_powder/base/error.h"

namespace fp::image::detail {

/// Throws fp::Error("fp::image::<function>: <source>: <problem>").
[[noreturn]] void fail(ErrorCode code, std::string_view function, std::string_view source,
                       std::string_view problem);

}  // namespace fp::image::detail
