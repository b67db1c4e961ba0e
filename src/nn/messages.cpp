#include "messages.h"

#include "flash_powder/abi/error.h"

namespace fp::nn::detail {

void fail(const std::string& layer, const std::string& message) {
  throw Error(ErrorCode::BadArgument, "fp::nn::" + layer + ": " + message);
}

}  // namespace fp::nn::detail
