// torchvision/ops/misc.py's Conv2dNormActivation.
#include "flash_powder/vision/ops/conv_norm_activation.h"

#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/layers/normalization.h"
#include "flash_powder/vision/ops/frozen_batch_norm.h"

namespace fp::vision::ops {

Conv2dNormActivation::Conv2dNormActivation(std::int64_t in_channels, std::int64_t out_channels,
                                           std::int64_t kernel_size,
                                           const Conv2dNormActivationOptions& options)
    : out_channels(out_channels) {
  const std::int64_t padding = options.padding.value_or((kernel_size - 1) / 2 * options.dilation);
  push(nn::Conv2d(in_channels, out_channels, kernel_size,
                  {.stride = options.stride,
                   .padding = padding,
                   .dilation = options.dilation,
                   .groups = options.groups,
                   .bias = options.bias.value_or(options.norm_layer == NormLayer::None)}));
  switch (options.norm_layer) {
    case NormLayer::BatchNorm2d:
      push(nn::BatchNorm2d(out_channels, {.eps = options.norm_eps}));
      break;
    case NormLayer::FrozenBatchNorm2d:
      push(FrozenBatchNorm2d(out_channels, options.norm_eps));
      break;
    case NormLayer::GroupNorm:
      push(nn::GroupNorm(options.norm_groups, out_channels, {.eps = options.norm_eps}));
      break;
    case NormLayer::None:
      break;
  }
  switch (options.activation_layer) {
    case ActivationLayer::ReLU:
      push(nn::ReLU());
      break;
    case ActivationLayer::ReLU6:
      push(nn::ReLU6());
      break;
    case ActivationLayer::SiLU:
      push(nn::SiLU());
      break;
    case ActivationLayer::Hardswish:
      push(nn::Hardswish());
      break;
    case ActivationLayer::GELU:
      push(nn::GELU());
      break;
    case ActivationLayer::None:
      break;
  }
}

}  // namespace fp::vision::ops
