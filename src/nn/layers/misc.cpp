#include "flash_powder/nn/layers/misc.h"

#include "../aten_op.h"
#include "../python_text.h"
#include "common.h"
#include "flash_powder/nn/functional/dropout.h"

namespace fp::nn {

Dropout::Dropout(double p) : p(p) {
  if (p < 0.0 || p > 1.0) {
    detail::fail("Dropout", "dropout probability has to be between 0 and 1, but got " +
                                detail::python_float(p));
  }
}

Tensor Dropout::forward(TensorView input) const {
  return functional::dropout(input, {.p = p, .training = false});
}

Tensor Flatten::forward(TensorView input) const {
  static const detail::AtenOp flatten("aten::flatten", "using_ints");
  return flatten(input, start_dim, end_dim);
}

Tensor Upsample::forward(TensorView input) const {
  return functional::interpolate(input, {.size = options.size,
                                         .scale_factor = options.scale_factor,
                                         .mode = options.mode,
                                         .align_corners = options.align_corners,
                                         .recompute_scale_factor = options.recompute_scale_factor});
}

Tensor PixelShuffle::forward(TensorView input) const {
  return functional::pixel_shuffle(input, upscale_factor);
}

}  // namespace fp::nn
