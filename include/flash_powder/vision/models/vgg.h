// torchvision's VGG networks, with its state-dict keys ("features.0.weight",
// "classifier.6.bias", ...), so a torchvision checkpoint converted to
// safetensors loads unchanged (tools/convert_torchvision_weights.py).
// https://pytorch.org/vision/stable/models/vgg.html
//
//     auto net = fp::vision::models::vgg11();
//     net.load_state_dict(fp::safetensors::MappedFile::open("vgg11.safetensors"));
//     fp::Tensor logits = net(batch);  // [N, 1000]
#pragma once

#include <cstdint>
#include <span>

#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/layers/pooling.h"
#include "flash_powder/nn/module.h"

namespace fp::vision::models {

/// The keyword arguments of torchvision's VGG constructors.
struct VGGOptions {
  /// The number of classes the classifier scores.
  std::int64_t num_classes = 1000;
  /// The classifier's dropout probability; the identity in inference.
  double dropout = 0.5;
};

/// torchvision.models.VGG: `features` (convolutions), `avgpool` (adaptive,
/// to 7x7, so any input of at least 32x32 works), `classifier` (three linear layers).
class VGG : public nn::Module {
 public:
  /// A VGG over `features` (make_vgg_layers).
  explicit VGG(nn::Sequential features, const VGGOptions& options = {});

  void visit(nn::Visitor& visitor) override;
  /// [N, 3, H, W] float images -> [N, num_classes] logits.
  Tensor forward(TensorView input) const override;

  /// The convolutional trunk.
  nn::Sequential features;
  /// Pools to 7x7.
  nn::AdaptiveAvgPool2d avgpool{{7, 7}};
  /// Linear, ReLU, Dropout, Linear, ReLU, Dropout, Linear.
  nn::Sequential classifier;
};

/// One entry of a VGG configuration: a convolution's output channels, or
/// kMaxPool for a 2x2 max-pool. torchvision's `cfgs`.
inline constexpr int kMaxPool = 0;

/// torchvision.models.vgg.make_layers: the `features` of a configuration.
nn::Sequential make_vgg_layers(std::span<const int> config, bool batch_norm);

/// https://pytorch.org/vision/stable/models/generated/torchvision.models.vgg11.html
VGG vgg11(const VGGOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.vgg11_bn.html
VGG vgg11_bn(const VGGOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.vgg13.html
VGG vgg13(const VGGOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.vgg13_bn.html
VGG vgg13_bn(const VGGOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.vgg16.html
VGG vgg16(const VGGOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.vgg16_bn.html
VGG vgg16_bn(const VGGOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.vgg19.html
VGG vgg19(const VGGOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.vgg19_bn.html
VGG vgg19_bn(const VGGOptions& options = {});

}  // namespace fp::vision::models
