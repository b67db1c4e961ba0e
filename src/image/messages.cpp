// Error messages of the image layer.
#include "messages.h"

#include "flash_powder/base/error.h"

namespace fp::image::detail {

void fail(ErrorCode code, std::string_view function, std::string_view source,
          std::string_view problem) {
  throw Error(code, "fp::image::" + std::string(function) + ": " + std::string(source) + ": " +
                        std::string(problem));
}

}  // namespace fp::image::detail
