#include "flash_powder/functional/dropout.h"

#include "flash_powder/aten/aten.h"
#include "nn/messages.h"

namespace fp::functional {

Tensor dropout(const TensorView& input, const DropoutOptions& options) {
  if (options.p < 0.0 || options.p > 1.0) {
    throw Error(ErrorCode::BadArgument,
                "fp::functional::dropout: dropout probability has to be between 0 and 1, but got " +
                    nn::detail::python_float(options.p));
  }
  if (!options.training) return input.to_owned();
  return aten::dropout(input, options.p, options.training);
}

}  // namespace fp::functional
