// The demo's U-Net in C++: examples/unet/unet.py's UNet, with its state-dict
// keys ("inc.0.weight", "down1.1.3.running_var", "up1.weight", ...). Shared
// by examples/unet/main.cpp and bench/vision_forward.cpp.
#pragma once

#include <cstdint>

#include <flash_powder/flash_powder.h>

namespace unet {

namespace nn = fp::nn;

/// (3x3 convolution, BatchNorm, ReLU) twice, as unet.py's double_conv.
inline nn::Sequential double_conv(std::int64_t in, std::int64_t out) {
  return nn::Sequential(nn::Conv2d(in, out, 3, {.padding = 1, .bias = false}), nn::BatchNorm2d(out),
                        nn::ReLU(), nn::Conv2d(out, out, 3, {.padding = 1, .bias = false}),
                        nn::BatchNorm2d(out), nn::ReLU());
}

/// unet.py's UNet: two levels down (max-pool), up by a transposed
/// convolution and by bilinear upsampling, skips joined by cat.
struct UNet : nn::Module {
  explicit UNet(std::int64_t width = 8, std::int64_t classes = 4)
      : inc(double_conv(3, width)),
        down1(nn::MaxPool2d(2), double_conv(width, 2 * width)),
        down2(nn::MaxPool2d(2), double_conv(2 * width, 4 * width)),
        up1(4 * width, 2 * width, 2, {.stride = 2}),
        conv1(double_conv(4 * width, 2 * width)),
        up2({.scale_factor = 2.0, .mode = "bilinear", .align_corners = false}),
        conv2(double_conv(3 * width, width)),
        outc(width, classes, 1) {}

  void visit(nn::Visitor& v) override {
    v.child("inc", inc);
    v.child("down1", down1);
    v.child("down2", down2);
    v.child("up1", up1);
    v.child("conv1", conv1);
    v.child("up2", up2);
    v.child("conv2", conv2);
    v.child("outc", outc);
  }

  fp::Tensor forward(fp::TensorView x) const override {
    const fp::Tensor x1 = inc(x);
    const fp::Tensor x2 = down1(x1);
    const fp::Tensor x3 = down2(x2);
    const fp::Tensor y = conv1(fp::cat({up1(x3), x2}, 1));
    return outc(conv2(fp::cat({up2(y), x1}, 1)));
  }

  nn::Sequential inc, down1, down2;
  nn::ConvTranspose2d up1;
  nn::Sequential conv1;
  nn::Upsample up2;
  nn::Sequential conv2;
  nn::Conv2d outc;
};

}  // namespace unet
