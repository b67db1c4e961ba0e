// torchvision's GoogLeNet (Inception v1), with its state-dict keys
// ("conv1.conv.weight", "inception3a.branch2.1.bn.running_var",
// "aux1.fc1.weight", "fc.bias", ...).
// https://pytorch.org/vision/stable/models/googlenet.html
//
//     auto net = fp::vision::models::googlenet({.transform_input = true});
//     net.load_state_dict(fp::safetensors::MappedFile::open("googlenet.safetensors"));
//     fp::Tensor logits = net(batch);  // [N, 1000]
//
// The auxiliary classifiers (aux1, aux2) are trained with the network and
// unused in inference, as in torchvision's eval mode; they have keys unless
// `aux_logits` is false. torchvision's pretrained weights expect
// `transform_input = true`, which torchvision's builder sets for them.
#pragma once

#include <cstdint>
#include <optional>

#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/layers/dropout.h"
#include "flash_powder/nn/layers/linear.h"
#include "flash_powder/nn/layers/normalization.h"
#include "flash_powder/nn/layers/pooling.h"
#include "flash_powder/nn/module.h"

namespace fp::vision::models {

/// The keyword arguments of torchvision's googlenet constructor (but
/// `init_weights` and `blocks`, which choose how Python initialises and
/// builds the network).
struct GoogLeNetOptions {
  /// The number of classes `fc` (and the auxiliary classifiers) map to
  /// (fp::Error when negative).
  std::int64_t num_classes = 1000;
  /// Whether the network has the auxiliary classifiers aux1 and aux2 (their
  /// keys; they are unused in inference).
  bool aux_logits = true;
  /// Maps images normalised with ImageNet's mean and deviation to the
  /// normalisation of the original network's training ((x * std + mean -
  /// 0.5) / 0.5 per channel), as torchvision's pretrained weights need.
  bool transform_input = false;
  /// The dropout probability before `fc`; the identity in inference.
  double dropout = 0.2;
  /// The auxiliary classifiers' dropout probability.
  double dropout_aux = 0.7;
};

/// torchvision.models.googlenet.BasicConv2d (and inception.BasicConv2d,
/// the same): convolution without bias, BatchNorm (eps 0.001), ReLU.
class BasicConv2d : public nn::Module {
 public:
  /// `BasicConv2d(in_channels, out_channels, kernel_size=..., stride=...,
  /// padding=...)`; each a number or one per dimension (`{1, 7}`).
  BasicConv2d(std::int64_t in_channels, std::int64_t out_channels,
              nn::ExpandingArray<2> kernel_size, nn::ExpandingArray<2> stride = 1,
              nn::ExpandingArray<2> padding = 0);

  void visit(nn::Visitor& visitor) override;
  /// relu(bn(conv(input))), a new Tensor.
  Tensor forward(TensorView input) const override;

  /// The convolution (no bias).
  nn::Conv2d conv;
  /// Its BatchNorm, eps 0.001.
  nn::BatchNorm2d bn;
};

/// torchvision.models.googlenet.Inception: four branches (1x1; 1x1 then
/// 3x3; 1x1 then 3x3, where the paper has 5x5, as in torchvision; 3x3
/// max-pool then 1x1) concatenated along the channels.
class Inception : public nn::Module {
 public:
  /// `Inception(in_channels, ch1x1, ch3x3red, ch3x3, ch5x5red, ch5x5, pool_proj)`.
  Inception(std::int64_t in_channels, std::int64_t ch1x1, std::int64_t ch3x3red, std::int64_t ch3x3,
            std::int64_t ch5x5red, std::int64_t ch5x5, std::int64_t pool_proj);

  void visit(nn::Visitor& visitor) override;
  /// [N, in_channels, H, W] -> [N, ch1x1 + ch3x3 + ch5x5 + pool_proj, H, W].
  Tensor forward(TensorView input) const override;

  /// The 1x1 branch.
  BasicConv2d branch1;
  /// 1x1 reduction, then 3x3.
  nn::Sequential branch2;
  /// 1x1 reduction, then 3x3 (torchvision's "5x5" branch).
  nn::Sequential branch3;
  /// 3x3 max-pool of stride 1, then 1x1.
  nn::Sequential branch4;
};

/// torchvision.models.googlenet.InceptionAux (named after its network here,
/// Inception v3's having the name and another head): an auxiliary classifier
/// (adaptive 4x4 average pooling, 1x1 BasicConv2d to 128 channels, fc1,
/// ReLU, dropout, fc2). GoogLeNet does not call it in inference.
class GoogLeNetAux : public nn::Module {
 public:
  /// `InceptionAux(in_channels, num_classes, dropout=0.7)`.
  GoogLeNetAux(std::int64_t in_channels, std::int64_t num_classes, double dropout = 0.7);

  void visit(nn::Visitor& visitor) override;
  /// [N, in_channels, H, W] -> [N, num_classes] logits, a new Tensor.
  Tensor forward(TensorView input) const override;

  /// 1x1 convolution to 128 channels.
  BasicConv2d conv;
  /// 2048 -> 1024.
  nn::Linear fc1;
  /// 1024 -> num_classes.
  nn::Linear fc2;
  /// Dropout (the identity in inference).
  nn::Dropout dropout;
};

/// torchvision.models.GoogLeNet in eval mode: the logits of `fc` (the
/// auxiliary classifiers are for training).
class GoogLeNet : public nn::Module {
 public:
  /// `GoogLeNet(num_classes, aux_logits, transform_input, dropout, dropout_aux)`.
  explicit GoogLeNet(const GoogLeNetOptions& options = {});

  void visit(nn::Visitor& visitor) override;
  /// [N, 3, H, W] float images (H and W at least 15, torchvision's
  /// min_size) -> [N, num_classes] logits, a new Tensor.
  Tensor forward(TensorView input) const override;

  /// Whether forward maps the input's normalisation (GoogLeNetOptions).
  bool transform_input;
  /// 7x7 BasicConv2d of stride 2 to 64 channels.
  BasicConv2d conv1;
  /// 3x3 max-pool of stride 2, rounding up.
  nn::MaxPool2d maxpool1;
  /// 1x1 BasicConv2d.
  BasicConv2d conv2;
  /// 3x3 BasicConv2d to 192 channels.
  BasicConv2d conv3;
  /// 3x3 max-pool of stride 2, rounding up.
  nn::MaxPool2d maxpool2;
  /// Inception block (192 -> 256 channels).
  Inception inception3a;
  /// Inception block (256 -> 480 channels).
  Inception inception3b;
  /// 3x3 max-pool of stride 2, rounding up.
  nn::MaxPool2d maxpool3;
  /// Inception block (480 -> 512 channels).
  Inception inception4a;
  /// Inception block (512 -> 512 channels).
  Inception inception4b;
  /// Inception block (512 -> 512 channels).
  Inception inception4c;
  /// Inception block (512 -> 528 channels).
  Inception inception4d;
  /// Inception block (528 -> 832 channels).
  Inception inception4e;
  /// 2x2 max-pool of stride 2, rounding up.
  nn::MaxPool2d maxpool4;
  /// Inception block (832 -> 832 channels).
  Inception inception5a;
  /// Inception block (832 -> 1024 channels).
  Inception inception5b;
  /// The auxiliary classifier after inception4a (with aux_logits).
  std::optional<GoogLeNetAux> aux1;
  /// The auxiliary classifier after inception4d (with aux_logits).
  std::optional<GoogLeNetAux> aux2;
  /// Global average pooling.
  nn::AdaptiveAvgPool2d avgpool;
  /// Dropout before `fc` (the identity in inference).
  nn::Dropout dropout;
  /// The classifier, 1024 -> num_classes.
  nn::Linear fc;
};

/// https://pytorch.org/vision/stable/models/generated/torchvision.models.googlenet.html
GoogLeNet googlenet(const GoogLeNetOptions& options = {});

}  // namespace fp::vision::models
