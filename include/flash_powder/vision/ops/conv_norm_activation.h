// torchvision.ops.Conv2dNormActivation: a convolution, a norm and an
// activation in an nn::Sequential, the block most torchvision networks
// are built from. https://pytorch.org/vision/stable/generated/torchvision.ops.Conv2dNormActivation.html
#pragma once

#include <cstdint>
#include <optional>

#include "flash_powder/nn/layers/containers.h"

namespace fp::vision::ops {

/// The norm layer after the convolution (torchvision passes a class;
/// GroupNorm is the detection heads' partial(nn.GroupNorm, norm_groups)).
enum class NormLayer { None, BatchNorm2d, FrozenBatchNorm2d, GroupNorm };
/// The activation layer after the norm.
enum class ActivationLayer { None, ReLU, ReLU6, SiLU, Hardswish, GELU };

/// Conv2dNormActivation's keyword arguments, with torchvision's defaults.
struct Conv2dNormActivationOptions {
  /// The convolution's stride.
  std::int64_t stride = 1;
  /// Its padding; (kernel_size - 1) / 2 * dilation when absent.
  std::optional<std::int64_t> padding{};
  /// Its groups.
  std::int64_t groups = 1;
  /// The norm ("1"), or none.
  NormLayer norm_layer = NormLayer::BatchNorm2d;
  /// The norm's eps (torchvision's partial(norm_layer, eps=...)).
  double norm_eps = 1e-5;
  /// GroupNorm's number of groups (RetinaNet's and FCOS's 32).
  std::int64_t norm_groups = 32;
  /// The activation (the last layer), or none.
  ActivationLayer activation_layer = ActivationLayer::ReLU;
  /// The convolution's dilation.
  std::int64_t dilation = 1;
  /// Whether the convolution has a bias; when absent, only without a norm.
  std::optional<bool> bias{};
};

/// torchvision.ops.Conv2dNormActivation: keys "0.weight" (the convolution),
/// "1.weight", "1.running_mean", ... (the norm, when there is one).
class Conv2dNormActivation : public nn::Sequential {
 public:
  /// `in_channels` to `out_channels` with a `kernel_size` square kernel.
  /// Throws fp::Error (BadArgument) for sizes the convolution refuses.
  Conv2dNormActivation(std::int64_t in_channels, std::int64_t out_channels,
                       std::int64_t kernel_size = 3,
                       const Conv2dNormActivationOptions& options = {});

  /// The convolution's output channels.
  std::int64_t out_channels;
};

}  // namespace fp::vision::ops
