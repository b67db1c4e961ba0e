// torchvision's MNASNet (the B1 variant) at depth multipliers 0.5, 0.75, 1.0
// and 1.3, with its state-dict keys ("layers.0.weight",
// "layers.8.0.layers.3.weight", "layers.16.running_var",
// "classifier.1.bias", ...).
// https://pytorch.org/vision/stable/models/mnasnet.html
//
//     auto net = fp::vision::models::mnasnet1_0();
//     net.load_state_dict(fp::safetensors::MappedFile::open("mnasnet1_0.safetensors"));
//     fp::Tensor logits = net(batch);  // [N, 1000]
//
// torchvision's networks are version 2 of MNASNet (the stem's depths scale
// with alpha); version 1 checkpoints of alpha other than 1.0, whose stem is
// fixed, which torchvision patches its network for as it loads them, do not
// load here.
#pragma once

#include <cstdint>

#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/module.h"

namespace fp::vision::models {

/// The keyword arguments of torchvision's mnasnet constructors.
struct MNASNetOptions {
  /// The number of classes the classifier maps to (fp::Error when negative).
  std::int64_t num_classes = 1000;
  /// The classifier's dropout probability; the identity in inference.
  double dropout = 0.2;
};

/// torchvision.models.mnasnet._InvertedResidual (named after its network
/// here, MobileNet's blocks having the name): `layers` is a 1x1 expansion,
/// a depthwise convolution and a 1x1 projection, each with BatchNorm, ReLU
/// after the first two; the input is added back when the shape allows.
class MNASNetInvertedResidual : public nn::Module {
 public:
  /// `_InvertedResidual(in_ch, out_ch, kernel_size, stride,
  /// expansion_factor, bn_momentum)`: fp::Error, with torchvision's message,
  /// for a stride other than 1 or 2 or a kernel size other than 3 or 5.
  MNASNetInvertedResidual(std::int64_t in_ch, std::int64_t out_ch, std::int64_t kernel_size,
                          std::int64_t stride, std::int64_t expansion_factor,
                          double bn_momentum = 0.1);

  void visit(nn::Visitor& visitor) override;
  /// [N, in_ch, H, W] -> [N, out_ch, H / stride, W / stride], a new Tensor.
  Tensor forward(TensorView input) const override;

  /// Whether the input is added to `layers`' output (same channels, stride 1).
  bool apply_residual;
  /// Pointwise expansion, depthwise convolution, linear pointwise projection.
  nn::Sequential layers;
};

/// torchvision.models.MNASNet: `layers` (the stem, six stacks of
/// MNASNetInvertedResidual and a 1x1 convolution to 1280 channels), a mean
/// over height and width, and `classifier` (dropout, linear).
class MNASNet : public nn::Module {
 public:
  /// `MNASNet(alpha, num_classes, dropout)`: alpha scales every depth but
  /// the last 1280 (fp::Error unless positive).
  explicit MNASNet(double alpha, const MNASNetOptions& options = {});

  void visit(nn::Visitor& visitor) override;
  /// [N, 3, H, W] float images -> [N, num_classes] logits, a new Tensor.
  Tensor forward(TensorView input) const override;

  /// The depth multiplier.
  double alpha;
  /// The stem, the stacks of inverted residuals and the final 1x1
  /// convolution, BatchNorm and ReLU ("layers.0" ... "layers.16").
  nn::Sequential layers;
  /// Dropout (the identity in inference), then the linear layer.
  nn::Sequential classifier;
};

/// MNASNet with depth multiplier 0.5.
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.mnasnet0_5.html
MNASNet mnasnet0_5(const MNASNetOptions& options = {});
/// MNASNet with depth multiplier 0.75.
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.mnasnet0_75.html
MNASNet mnasnet0_75(const MNASNetOptions& options = {});
/// MNASNet with depth multiplier 1.0.
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.mnasnet1_0.html
MNASNet mnasnet1_0(const MNASNetOptions& options = {});
/// MNASNet with depth multiplier 1.3.
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.mnasnet1_3.html
MNASNet mnasnet1_3(const MNASNetOptions& options = {});

}  // namespace fp::vision::models
