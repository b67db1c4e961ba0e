// What torchvision/models/_utils.py and torchvision.ops.misc give several
// model families.
#pragma once

#include <algorithm>
#include <cstdint>

#include "flash_powder/aten/aten.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/layers/normalization.h"
#include "flash_powder/vision/ops/frozen_batch_norm.h"

namespace fp::vision::models::detail {

/// torchvision.models._utils._make_divisible: `value` rounded to the nearest
/// multiple of `divisor` (at least `divisor`), never more than 10% below it.
inline std::int64_t make_divisible(double value, std::int64_t divisor = 8) {
  std::int64_t rounded =
      std::max(divisor, static_cast<std::int64_t>(value + divisor / 2.0) / divisor * divisor);
  if (static_cast<double>(rounded) < 0.9 * value) rounded += divisor;
  return rounded;
}

/// The activation layer of a Conv2dNormActivation.
enum class Activation { None, ReLU, SiLU, Hardswish };

/// Conv2dNormActivation's keyword arguments that the families vary.
struct ConvNormOptions {
  /// The convolution's stride.
  std::int64_t stride = 1;
  /// Its groups.
  std::int64_t groups = 1;
  /// Its dilation (the padding grows with it, as torchvision's).
  std::int64_t dilation = 1;
  /// The BatchNorm's eps.
  double eps = 1e-5;
  /// The BatchNorm's momentum (training only).
  double momentum = 0.1;
  /// A FrozenBatchNorm2d (with `eps`) instead of the BatchNorm2d.
  bool frozen_norm = false;
  /// The layer after the BatchNorm, if any.
  Activation activation = Activation::ReLU;
};

/// torchvision.ops.Conv2dNormActivation with BatchNorm2d: keys "0" (the
/// convolution, no bias, padding (kernel - 1) / 2 * dilation), "1" (the
/// norm); the activation has none.
inline nn::Sequential conv_norm_activation(std::int64_t in, std::int64_t out, std::int64_t kernel,
                                           const ConvNormOptions& options = {}) {
  nn::Sequential layers(nn::Conv2d(in, out, kernel,
                                   {.stride = options.stride,
                                    .padding = (kernel - 1) / 2 * options.dilation,
                                    .dilation = options.dilation,
                                    .groups = options.groups,
                                    .bias = false}));
  if (options.frozen_norm)
    layers.push(ops::FrozenBatchNorm2d(out, options.eps));
  else
    layers.push(nn::BatchNorm2d(out, {.eps = options.eps, .momentum = options.momentum}));
  if (options.activation == Activation::ReLU) layers.push(nn::ReLU());
  if (options.activation == Activation::SiLU) layers.push(nn::SiLU());
  if (options.activation == Activation::Hardswish) layers.push(nn::Hardswish());
  return layers;
}

/// GoogLeNet's and Inception v3's `_transform_input`: images normalised with
/// ImageNet's mean and deviation mapped to the original networks'
/// normalisation, `x[:, c] * (std / 0.5) + (mean - 0.5) / 0.5` per channel,
/// in torchvision's order of operations; a new Tensor.
inline Tensor transform_input(TensorView input) {
  const auto channel = [&](std::int64_t c, double deviation, double mean) {
    return input.i(fp::all, fp::slice(c, c + 1)) * (deviation / 0.5) + (mean - 0.5) / 0.5;
  };
  return aten::cat({channel(0, 0.229, 0.485), channel(1, 0.224, 0.456), channel(2, 0.225, 0.406)},
                   1);
}

}  // namespace fp::vision::models::detail
