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

Tensor UpsamplingNearest2d::forward(TensorView input) const {
  return functional::upsample_nearest(input, options);
}

Tensor UpsamplingBilinear2d::forward(TensorView input) const {
  return functional::upsample_bilinear(input, options);
}

Tensor PixelUnshuffle::forward(TensorView input) const {
  return functional::pixel_unshuffle(input, downscale_factor);
}

Tensor ChannelShuffle::forward(TensorView input) const {
  return functional::channel_shuffle(input, groups);
}

}  // namespace fp::nn
