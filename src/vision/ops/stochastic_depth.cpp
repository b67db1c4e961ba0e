// torchvision/ops/stochastic_depth.py's StochasticDepth in eval mode.
#include "flash_powder/vision/ops/stochastic_depth.h"

#include <string>
#include <utility>

#include "base/text.h"
#include "flash_powder/base/error.h"

namespace fp::vision::ops {

StochasticDepth::StochasticDepth(double p, std::string mode) : p(p), mode(std::move(mode)) {
  if (!(p >= 0.0 && p <= 1.0))
    throw Error(ErrorCode::BadArgument,
                "StochasticDepth: drop probability has to be between 0 and 1, but got " +
                    fp::detail::python_float(p));
  if (this->mode != "batch" && this->mode != "row")
    throw Error(ErrorCode::BadArgument,
                "StochasticDepth: mode has to be either 'batch' or 'row', but got " + this->mode);
}

Tensor StochasticDepth::forward(TensorView input) const {
  return input.to_owned();
}

}  // namespace fp::vision::ops
