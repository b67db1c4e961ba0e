// torchvision's ResNet networks, with its state-dict keys ("conv1.weight",
// "layer1.0.bn1.running_mean", "layer2.0.downsample.0.weight", "fc.bias", ...).
// https://pytorch.org/vision/stable/models/resnet.html
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

namespace fp::vision::models {

/// The keyword arguments of torchvision's ResNet constructors.
struct ResNetOptions {
  std::int64_t num_classes = 1000;
};

/// torchvision.models.resnet.BasicBlock (ResNet-18 and -34): two 3x3
/// convolutions and a shortcut. `downsample` is empty (no state-dict keys)
/// when the shortcut is the identity.
class BasicBlock : public nn::Module {
 public:
  static constexpr std::int64_t expansion = 1;
  BasicBlock(std::int64_t inplanes, std::int64_t planes, std::int64_t stride,
             nn::Sequential downsample);

  void visit(nn::Visitor& visitor) override;
  /// {conv1, bn1, relu}, {conv2, bn2} (which adds the shortcut and applies ReLU).
  std::vector<std::vector<std::string>> fusable_chains() const override;
  Tensor forward(TensorView input) const override;

  nn::Conv2d conv1;
  nn::BatchNorm2d bn1;
  nn::ReLU relu;
  nn::Conv2d conv2;
  nn::BatchNorm2d bn2;
  nn::Sequential downsample;
};

/// torchvision.models.resnet.Bottleneck (ResNet-50, -101, -152): 1x1, 3x3
/// (with the stride, as torchvision's "ResNet V1.5"), 1x1 and a shortcut.
class Bottleneck : public nn::Module {
 public:
  static constexpr std::int64_t expansion = 4;
  Bottleneck(std::int64_t inplanes, std::int64_t planes, std::int64_t stride,
             nn::Sequential downsample);

  void visit(nn::Visitor& visitor) override;
  /// {conv1, bn1, relu}, {conv2, bn2, relu}, {conv3, bn3} (which adds the
  /// shortcut and applies ReLU).
  std::vector<std::vector<std::string>> fusable_chains() const override;
  Tensor forward(TensorView input) const override;

  nn::Conv2d conv1;
  nn::BatchNorm2d bn1;
  nn::ReLU relu;
  nn::Conv2d conv2;
  nn::BatchNorm2d bn2;
  nn::Conv2d conv3;
  nn::BatchNorm2d bn3;
  nn::Sequential downsample;
};

/// Which residual block a ResNet is made of.
enum class ResNetBlock { Basic, Bottleneck };

/// torchvision.models.ResNet: a 7x7 stem, four stages of residual blocks
/// (`layer1` .. `layer4`, `blocks` of each), global average pooling and `fc`.
class ResNet : public nn::Module {
 public:
  ResNet(ResNetBlock block, std::array<std::int64_t, 4> blocks, const ResNetOptions& options = {});

  void visit(nn::Visitor& visitor) override;
  /// {conv1, bn1, relu}: the stem.
  std::vector<std::vector<std::string>> fusable_chains() const override;
  /// [N, 3, H, W] float images -> [N, num_classes] logits.
  Tensor forward(TensorView input) const override;

  nn::Conv2d conv1;
  nn::BatchNorm2d bn1;
  nn::ReLU relu;
  nn::MaxPool2d maxpool;
  nn::Sequential layer1;
  nn::Sequential layer2;
  nn::Sequential layer3;
  nn::Sequential layer4;
  nn::AdaptiveAvgPool2d avgpool{{1, 1}};
  nn::Linear fc;
};

/// https://pytorch.org/vision/stable/models/generated/torchvision.models.resnet18.html
ResNet resnet18(const ResNetOptions& options = {});
ResNet resnet34(const ResNetOptions& options = {});
ResNet resnet50(const ResNetOptions& options = {});
ResNet resnet101(const ResNetOptions& options = {});
ResNet resnet152(const ResNetOptions& options = {});

}  // namespace fp::vision::models
