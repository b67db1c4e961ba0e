// torchvision/models/mnasnet.py, layer for layer.
#include "flash_powder/vision/models/mnasnet.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "base/text.h"
#include "flash_powder/aten/aten.h"
#include "flash_powder/base/error.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/layers/dropout.h"
#include "flash_powder/nn/layers/linear.h"
#include "flash_powder/nn/layers/normalization.h"

namespace fp::vision::models {
namespace {

/// torchvision's _BN_MOMENTUM: the paper's TensorFlow momentum 0.9997 in
/// PyTorch's convention (used in training only).
constexpr double kBnMomentum = 1 - 0.9997;

nn::BatchNorm2d batch_norm(std::int64_t channels, double momentum) {
  return nn::BatchNorm2d(channels, {.momentum = momentum});
}

/// _InvertedResidual's checks, with torchvision's messages.
void check_block(std::int64_t kernel_size, std::int64_t stride) {
  if (stride != 1 && stride != 2)
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::MNASNetInvertedResidual: stride should be 1 or 2 instead of " +
                    std::to_string(stride));
  if (kernel_size != 3 && kernel_size != 5)
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::MNASNetInvertedResidual: kernel_size should be 3 or 5 "
                "instead of " +
                    std::to_string(kernel_size));
}

/// torchvision's _stack: `repeats` inverted residuals, the first changing
/// the channels and size (no skip), the rest of stride 1.
nn::Sequential stack(std::int64_t in_ch, std::int64_t out_ch, std::int64_t kernel_size,
                     std::int64_t stride, std::int64_t exp_factor, std::int64_t repeats) {
  nn::Sequential blocks(
      MNASNetInvertedResidual(in_ch, out_ch, kernel_size, stride, exp_factor, kBnMomentum));
  for (std::int64_t i = 1; i < repeats; ++i)
    blocks.push(MNASNetInvertedResidual(out_ch, out_ch, kernel_size, 1, exp_factor, kBnMomentum));
  return blocks;
}

/// torchvision's _round_to_multiple_of(val, divisor) with round_up_bias 0.9:
/// rounds up unless that adds more than 10%.
std::int64_t round_to_multiple_of(double val, std::int64_t divisor) {
  const auto divisor_d = static_cast<double>(divisor);
  // Python's int() truncates; val is positive.
  const std::int64_t new_val =
      std::max(divisor, static_cast<std::int64_t>(val + divisor_d / 2) / divisor * divisor);
  return static_cast<double>(new_val) >= 0.9 * val ? new_val : new_val + divisor;
}

double checked_alpha(double alpha) {
  if (!(alpha > 0.0))
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::MNASNet: alpha should be greater than 0.0 instead of " +
                    fp::detail::python_float(alpha));
  return alpha;
}

/// torchvision's `layers` for depth multiplier `alpha`.
nn::Sequential mnasnet_layers(double alpha) {
  constexpr std::array<std::int64_t, 8> kDepths{32, 16, 24, 40, 80, 96, 192, 320};
  std::array<std::int64_t, 8> d{};
  for (std::size_t i = 0; i < d.size(); ++i)
    d[i] = round_to_multiple_of(static_cast<double>(kDepths[i]) * checked_alpha(alpha), 8);
  nn::Sequential layers;
  // First layer: regular convolution.
  layers.push(nn::Conv2d(3, d[0], 3, {.stride = 2, .padding = 1, .bias = false}))
      .push(batch_norm(d[0], kBnMomentum))
      .push(nn::ReLU());
  // Depthwise separable, no skip.
  layers.push(nn::Conv2d(d[0], d[0], 3, {.stride = 1, .padding = 1, .groups = d[0], .bias = false}))
      .push(batch_norm(d[0], kBnMomentum))
      .push(nn::ReLU())
      .push(nn::Conv2d(d[0], d[1], 1, {.bias = false}))
      .push(batch_norm(d[1], kBnMomentum));
  // MNASNet blocks: stacks of inverted residuals.
  layers.push(stack(d[1], d[2], 3, 2, 3, 3))
      .push(stack(d[2], d[3], 5, 2, 3, 3))
      .push(stack(d[3], d[4], 5, 2, 6, 3))
      .push(stack(d[4], d[5], 3, 1, 6, 2))
      .push(stack(d[5], d[6], 5, 2, 6, 4))
      .push(stack(d[6], d[7], 3, 1, 6, 1));
  // Final mapping to the classifier's input.
  layers.push(nn::Conv2d(d[7], 1280, 1, {.bias = false}))
      .push(batch_norm(1280, kBnMomentum))
      .push(nn::ReLU());
  return layers;
}

}  // namespace

MNASNetInvertedResidual::MNASNetInvertedResidual(std::int64_t in_ch, std::int64_t out_ch,
                                                 std::int64_t kernel_size, std::int64_t stride,
                                                 std::int64_t expansion_factor, double bn_momentum)
    : apply_residual(in_ch == out_ch && stride == 1) {
  check_block(kernel_size, stride);
  const std::int64_t mid_ch = in_ch * expansion_factor;
  // Pointwise, depthwise, then a linear pointwise (no activation).
  layers.push(nn::Conv2d(in_ch, mid_ch, 1, {.bias = false}))
      .push(batch_norm(mid_ch, bn_momentum))
      .push(nn::ReLU())
      .push(nn::Conv2d(
          mid_ch, mid_ch, kernel_size,
          {.stride = stride, .padding = kernel_size / 2, .groups = mid_ch, .bias = false}))
      .push(batch_norm(mid_ch, bn_momentum))
      .push(nn::ReLU())
      .push(nn::Conv2d(mid_ch, out_ch, 1, {.bias = false}))
      .push(batch_norm(out_ch, bn_momentum));
}

void MNASNetInvertedResidual::visit(nn::Visitor& visitor) {
  visitor.child("layers", layers);
}

Tensor MNASNetInvertedResidual::forward(TensorView input) const {
  Tensor out = layers(input);
  if (apply_residual) return out + input;
  return out;
}

MNASNet::MNASNet(double alpha, const MNASNetOptions& options)
    : alpha(checked_alpha(alpha)),
      layers(mnasnet_layers(alpha)),
      classifier(nn::Dropout(options.dropout), nn::Linear(1280, options.num_classes)) {}

void MNASNet::visit(nn::Visitor& visitor) {
  visitor.child("layers", layers);
  visitor.child("classifier", classifier);
}

Tensor MNASNet::forward(TensorView input) const {
  // The mean over height and width: global average pooling without H and W.
  return classifier(aten::mean_dim(layers(input), std::vector<std::int64_t>{2, 3}));
}

MNASNet mnasnet0_5(const MNASNetOptions& options) {
  return MNASNet(0.5, options);
}
MNASNet mnasnet0_75(const MNASNetOptions& options) {
  return MNASNet(0.75, options);
}
MNASNet mnasnet1_0(const MNASNetOptions& options) {
  return MNASNet(1.0, options);
}
MNASNet mnasnet1_3(const MNASNetOptions& options) {
  return MNASNet(1.3, options);
}

}  // namespace fp::vision::models
