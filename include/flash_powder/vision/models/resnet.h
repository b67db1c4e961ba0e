// torchvision's ResNet networks, with its state-dict keys ("conv1.weight",
// "layer1.0.bn1.running_mean", "layer2.0.downsample.0.weight", "fc.bias", ...).
// https://pytorch.org/vision/stable/models/resnet.html (and resnext.html,
// wide_resnet.html: the same network with grouped or wider 3x3 convolutions)
//
//     auto net = fp::vision::models::resnet50();
//     net.load_state_dict(fp::safetensors::MappedFile::open("resnet50.safetensors"));
//     fp::Tensor logits = net(batch);  // [N, 1000]
//
// Eager, the outputs are torchvision's bit for bit. For speed on the CPU,
// `fp::nn::optimize_for_inference(net)` (flash_powder/nn/optimize.h) folds
// each BatchNorm into its convolution and runs every convolution with its
// ReLU, and each block's last one with the shortcut's add and ReLU, as one
// oneDNN kernel, as a frozen AOTInductor package of torchvision's model does
// (the chains each block names in fusable_chains()).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/layers/linear.h"
#include "flash_powder/nn/layers/normalization.h"
#include "flash_powder/nn/layers/pooling.h"
#include "flash_powder/nn/module.h"
#include "flash_powder/vision/ops/conv_norm_activation.h"

namespace fp::vision::models {

/// The keyword arguments of torchvision's ResNet constructors.
struct ResNetOptions {
  /// The number of classes `fc` scores.
  std::int64_t num_classes = 1000;
  /// The 3x3 convolutions' groups (Bottleneck only; ResNeXt's cardinality).
  /// The resnext and wide_resnet builders set it and width_per_group, and
  /// refuse another value, as torchvision does.
  std::int64_t groups = 1;
  /// The channels of each group of a Bottleneck's 3x3 convolution at planes
  /// 64 (64: ResNet; 128: Wide ResNet; 4 or 8: ResNeXt).
  std::int64_t width_per_group = 64;
  /// Whether layer2, layer3 and layer4 each replace their stride 2 with a
  /// dilation of their 3x3 convolutions (torchvision's
  /// replace_stride_with_dilation; Bottleneck only). The segmentation
  /// backbones set {false, true, true}: features at 1/8 of the input size.
  std::array<bool, 3> replace_stride_with_dilation = {false, false, false};
  /// The norm after each convolution: BatchNorm2d, or FrozenBatchNorm2d
  /// (torchvision's `norm_layer`; its detection builders given weights use
  /// it). FrozenBatchNorm2d's norms are the same members, with
  /// FrozenBatchNorm2d's arithmetic and keys (no num_batches_tracked).
  ops::NormLayer norm_layer = ops::NormLayer::BatchNorm2d;
  /// Every norm's eps (torchvision's detection checkpoints run with 0: its
  /// builders' overwrite_eps).
  double norm_eps = 1e-5;
};

/// A ResNet's norms: whether FrozenBatchNorm2d's, and their eps.
struct ResNetNorm {
  /// FrozenBatchNorm2d's arithmetic and keys instead of BatchNorm2d's.
  bool frozen = false;
  /// Added to the variance.
  double eps = 1e-5;
};

/// torchvision.models.resnet.BasicBlock (ResNet-18 and -34): two 3x3
/// convolutions and a shortcut. `downsample` is empty (no state-dict keys)
/// when the shortcut is the identity.
class BasicBlock : public nn::Module {
 public:
  /// The ratio of output to `planes` channels.
  static constexpr std::int64_t expansion = 1;
  /// A block from `inplanes` to `planes` channels; `downsample` (maybe empty) adapts the shortcut.
  /// groups, base_width and dilation must be 1, 64 and 1 (fp::Error otherwise), as torchvision's.
  BasicBlock(std::int64_t inplanes, std::int64_t planes, std::int64_t stride,
             nn::Sequential downsample, std::int64_t groups = 1, std::int64_t base_width = 64,
             std::int64_t dilation = 1, ResNetNorm norm = {});

  void visit(nn::Visitor& visitor) override;
  /// {conv1, bn1, relu}, {conv2, bn2} (which adds the shortcut and applies ReLU).
  std::vector<std::vector<std::string>> fusable_chains() const override;
  Tensor forward(TensorView input) const override;

  /// The first 3x3 convolution (with the stride).
  nn::Conv2d conv1;
  /// Its batch norm.
  nn::BatchNorm2d bn1;
  /// The ReLU module (optimize_for_inference fuses it into the convolution before it).
  nn::ReLU relu;
  /// The second 3x3 convolution.
  nn::Conv2d conv2;
  /// Its batch norm.
  nn::BatchNorm2d bn2;
  /// Adapts the shortcut to the block's output (empty: the identity).
  nn::Sequential downsample;
  /// Whether the norms are FrozenBatchNorm2d's, and their eps.
  ResNetNorm norm;
};

/// torchvision.models.resnet.Bottleneck (ResNet-50, -101, -152, ResNeXt,
/// Wide ResNet): 1x1, 3x3 (with the stride and `groups`, as torchvision's
/// "ResNet V1.5"), 1x1 and a shortcut; the inner width is
/// `planes * base_width / 64 * groups`.
class Bottleneck : public nn::Module {
 public:
  /// The ratio of output to `planes` channels.
  static constexpr std::int64_t expansion = 4;
  /// A block from `inplanes` to 4 x `planes` channels; `downsample` (maybe empty) adapts the
  /// shortcut; `dilation` spaces the 3x3 convolution's taps (and pads as much).
  Bottleneck(std::int64_t inplanes, std::int64_t planes, std::int64_t stride,
             nn::Sequential downsample, std::int64_t groups = 1, std::int64_t base_width = 64,
             std::int64_t dilation = 1, ResNetNorm norm = {});

  void visit(nn::Visitor& visitor) override;
  /// {conv1, bn1, relu}, {conv2, bn2, relu}, {conv3, bn3} (which adds the
  /// shortcut and applies ReLU).
  std::vector<std::vector<std::string>> fusable_chains() const override;
  Tensor forward(TensorView input) const override;

  /// The 1x1 convolution that narrows to `planes`.
  nn::Conv2d conv1;
  /// Its batch norm.
  nn::BatchNorm2d bn1;
  /// The ReLU module (optimize_for_inference fuses it into the convolution before it).
  nn::ReLU relu;
  /// The 3x3 convolution (with the stride).
  nn::Conv2d conv2;
  /// Its batch norm.
  nn::BatchNorm2d bn2;
  /// The 1x1 convolution that widens to 4 x `planes`.
  nn::Conv2d conv3;
  /// Its batch norm.
  nn::BatchNorm2d bn3;
  /// Adapts the shortcut to the block's output (empty: the identity).
  nn::Sequential downsample;
  /// Whether the norms are FrozenBatchNorm2d's, and their eps.
  ResNetNorm norm;
};

/// Which residual block a ResNet is made of.
enum class ResNetBlock { Basic, Bottleneck };

/// torchvision.models.ResNet: a 7x7 stem, four stages of residual blocks
/// (`layer1` .. `layer4`, `blocks` of each), global average pooling and `fc`.
class ResNet : public nn::Module {
 public:
  /// A ResNet of `block`s, `blocks[i]` of them in stage i + 1.
  ResNet(ResNetBlock block, std::array<std::int64_t, 4> blocks, const ResNetOptions& options = {});

  void visit(nn::Visitor& visitor) override;
  /// {conv1, bn1, relu}: the stem.
  std::vector<std::vector<std::string>> fusable_chains() const override;
  /// [N, 3, H, W] float images -> [N, num_classes] logits.
  Tensor forward(TensorView input) const override;

  /// The 7x7 stem convolution, stride 2.
  nn::Conv2d conv1;
  /// Its batch norm.
  nn::BatchNorm2d bn1;
  /// The ReLU module (optimize_for_inference fuses it into the convolution before it).
  nn::ReLU relu;
  /// 3x3 max pooling, stride 2.
  nn::MaxPool2d maxpool;
  /// The first stage (stride 1).
  nn::Sequential layer1;
  /// The second stage (stride 2, or dilation 2: replace_stride_with_dilation).
  nn::Sequential layer2;
  /// The third stage (stride 2, or dilated).
  nn::Sequential layer3;
  /// The fourth stage (stride 2, or dilated).
  nn::Sequential layer4;
  /// Pools each channel to one value.
  nn::AdaptiveAvgPool2d avgpool{{1, 1}};
  /// The classifier.
  nn::Linear fc;
  /// Whether the norms are FrozenBatchNorm2d's, and their eps.
  ResNetNorm norm;
};

/// https://pytorch.org/vision/stable/models/generated/torchvision.models.resnet18.html
ResNet resnet18(const ResNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.resnet34.html
ResNet resnet34(const ResNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.resnet50.html
ResNet resnet50(const ResNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.resnet101.html
ResNet resnet101(const ResNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.resnet152.html
ResNet resnet152(const ResNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.resnext50_32x4d.html
ResNet resnext50_32x4d(const ResNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.resnext101_32x8d.html
ResNet resnext101_32x8d(const ResNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.resnext101_64x4d.html
ResNet resnext101_64x4d(const ResNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.wide_resnet50_2.html
ResNet wide_resnet50_2(const ResNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.wide_resnet101_2.html
ResNet wide_resnet101_2(const ResNetOptions& options = {});

}  // namespace fp::vision::models
