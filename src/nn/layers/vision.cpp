#include "flash_powder/nn/layers/vision.h"

namespace fp::nn {

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
