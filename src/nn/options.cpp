#include "flash_powder/nn/options.h"

#include <string>

namespace fp::nn::detail {

void throw_wrong_count(std::size_t wanted, std::size_t got) {
  throw Error(ErrorCode::BadArgument, "fp::nn: expected a single value or a list of " +
                                          std::to_string(wanted) + " values, got a list of " +
                                          std::to_string(got));
}

}  // namespace fp::nn::detail
