// torchvision's SqueezeNet 1.0 and 1.1, with its state-dict keys
// ("features.3.squeeze.weight", "features.3.expand3x3.bias",
// "classifier.1.weight", ...).
// https://pytorch.org/vision/stable/models/squeezenet.html
//
//     auto net = fp::vision::models::squeezenet1_1();
//     net.load_state_dict(fp::safetensors::MappedFile::open("squeezenet1_1.safetensors"));
//     fp::Tensor logits = net(batch);  // [N, 1000]
#pragma once

#include <cstdint>
#include <string>

#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/module.h"

namespace fp::vision::models {

/// The keyword arguments of torchvision's squeezenet constructors.
struct SqueezeNetOptions {
  /// The number of classes the classifier maps to (fp::Error when negative).
  std::int64_t num_classes = 1000;
  /// The classifier's dropout probability; the identity in inference.
  double dropout = 0.5;
};

/// torchvision.models.squeezenet.Fire: a 1x1 squeeze, then 1x1 and 3x3
/// expansions concatenated along the channels, each through ReLU.
class Fire : public nn::Module {
 public:
  /// `Fire(inplanes, squeeze_planes, expand1x1_planes, expand3x3_planes)`.
  Fire(std::int64_t inplanes, std::int64_t squeeze_planes, std::int64_t expand1x1_planes,
       std::int64_t expand3x3_planes);

  void visit(nn::Visitor& visitor) override;
  Tensor forward(TensorView input) const override;

  /// The 1x1 squeeze convolution.
  nn::Conv2d squeeze;
  /// The 1x1 expansion.
  nn::Conv2d expand1x1;
  /// The 3x3 expansion.
  nn::Conv2d expand3x3;
};

/// torchvision.models.SqueezeNet: `features` (a stem and Fire modules),
/// `classifier` (dropout, a 1x1 convolution to the classes, ReLU, global
/// average pooling).
class SqueezeNet : public nn::Module {
 public:
  /// version: "1_0" or "1_1", as torchvision's SqueezeNet(version=...).
  explicit SqueezeNet(const std::string& version, const SqueezeNetOptions& options = {});

  void visit(nn::Visitor& visitor) override;
  /// [N, 3, H, W] float images -> [N, num_classes] logits.
  Tensor forward(TensorView input) const override;

  /// The stem convolution, max-pools and Fire modules.
  nn::Sequential features;
  /// Dropout, 1x1 convolution to the classes, ReLU, global average pooling.
  nn::Sequential classifier;
};

/// https://pytorch.org/vision/stable/models/generated/torchvision.models.squeezenet1_0.html
SqueezeNet squeezenet1_0(const SqueezeNetOptions& options = {});
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.squeezenet1_1.html
SqueezeNet squeezenet1_1(const SqueezeNetOptions& options = {});

}  // namespace fp::vision::models
