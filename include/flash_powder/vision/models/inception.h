// torchvision's Inception v3, with its state-dict keys
// ("Conv2d_1a_3x3.conv.weight", "Mixed_5b.branch5x5_1.bn.running_mean",
// "AuxLogits.fc.weight", "fc.bias", ...).
// https://pytorch.org/vision/stable/models/inception.html
//
//     auto net = fp::vision::models::inception_v3({.transform_input = true});
//     net.load_state_dict(fp::safetensors::MappedFile::open("inception_v3.safetensors"));
//     fp::Tensor logits = net(batch);  // [N, 1000]; batch at least 75x75
//
// The auxiliary classifier (AuxLogits) is trained with the network and
// unused in inference, as in torchvision's eval mode; it has keys unless
// `aux_logits` is false. torchvision's pretrained weights expect
// `transform_input = true`, which torchvision's builder sets for them.
#pragma once

#include <cstdint>
#include <optional>

#include "flash_powder/nn/layers/dropout.h"
#include "flash_powder/nn/layers/linear.h"
#include "flash_powder/nn/layers/pooling.h"
#include "flash_powder/nn/module.h"
#include "flash_powder/vision/models/googlenet.h"

namespace fp::vision::models {

/// The keyword arguments of torchvision's inception_v3 and Inception3 (but
/// `init_weights` and `inception_blocks`, which choose how Python
/// initialises and builds the network).
struct Inception3Options {
  /// The number of classes `fc` (and AuxLogits) map to (fp::Error when negative).
  std::int64_t num_classes = 1000;
  /// Whether the network has the auxiliary classifier AuxLogits (its keys;
  /// it is unused in inference).
  bool aux_logits = true;
  /// Maps images normalised with ImageNet's mean and deviation to the
  /// normalisation of the original network's training, as GoogLeNet's.
  bool transform_input = false;
  /// The dropout probability before `fc`; the identity in inference.
  double dropout = 0.5;
};

/// torchvision.models.inception.InceptionA: 1x1; 1x1 then 5x5; 1x1 then two
/// 3x3; 3x3 average pool then 1x1 to `pool_features`; concatenated.
class InceptionA : public nn::Module {
 public:
  /// `InceptionA(in_channels, pool_features)`.
  InceptionA(std::int64_t in_channels, std::int64_t pool_features);
  void visit(nn::Visitor& visitor) override;
  /// [N, in_channels, H, W] -> [N, 224 + pool_features, H, W].
  Tensor forward(TensorView input) const override;

  BasicConv2d branch1x1;       ///< 1x1 to 64.
  BasicConv2d branch5x5_1;     ///< 1x1 to 48.
  BasicConv2d branch5x5_2;     ///< 5x5 to 64.
  BasicConv2d branch3x3dbl_1;  ///< 1x1 to 64.
  BasicConv2d branch3x3dbl_2;  ///< 3x3 to 96.
  BasicConv2d branch3x3dbl_3;  ///< 3x3 to 96.
  BasicConv2d branch_pool;     ///< 1x1 after the pool.
};

/// torchvision.models.inception.InceptionB: the grid reduction 35 -> 17.
class InceptionB : public nn::Module {
 public:
  /// `InceptionB(in_channels)`.
  explicit InceptionB(std::int64_t in_channels);
  void visit(nn::Visitor& visitor) override;
  /// [N, in_channels, H, W] -> [N, 480 + in_channels, (H - 3) / 2 + 1, ...].
  Tensor forward(TensorView input) const override;

  BasicConv2d branch3x3;       ///< 3x3 of stride 2 to 384.
  BasicConv2d branch3x3dbl_1;  ///< 1x1 to 64.
  BasicConv2d branch3x3dbl_2;  ///< 3x3 to 96.
  BasicConv2d branch3x3dbl_3;  ///< 3x3 of stride 2 to 96.
};

/// torchvision.models.inception.InceptionC: factorised 7x7 convolutions
/// (1x7 and 7x1) through `channels_7x7`.
class InceptionC : public nn::Module {
 public:
  /// `InceptionC(in_channels, channels_7x7)`.
  InceptionC(std::int64_t in_channels, std::int64_t channels_7x7);
  void visit(nn::Visitor& visitor) override;
  /// [N, in_channels, H, W] -> [N, 768, H, W].
  Tensor forward(TensorView input) const override;

  BasicConv2d branch1x1;       ///< 1x1 to 192.
  BasicConv2d branch7x7_1;     ///< 1x1.
  BasicConv2d branch7x7_2;     ///< 1x7.
  BasicConv2d branch7x7_3;     ///< 7x1 to 192.
  BasicConv2d branch7x7dbl_1;  ///< 1x1.
  BasicConv2d branch7x7dbl_2;  ///< 7x1.
  BasicConv2d branch7x7dbl_3;  ///< 1x7.
  BasicConv2d branch7x7dbl_4;  ///< 7x1.
  BasicConv2d branch7x7dbl_5;  ///< 1x7 to 192.
  BasicConv2d branch_pool;     ///< 1x1 after the pool, to 192.
};

/// torchvision.models.inception.InceptionD: the grid reduction 17 -> 8.
class InceptionD : public nn::Module {
 public:
  /// `InceptionD(in_channels)`.
  explicit InceptionD(std::int64_t in_channels);
  void visit(nn::Visitor& visitor) override;
  /// [N, in_channels, H, W] -> [N, 512 + in_channels, (H - 3) / 2 + 1, ...].
  Tensor forward(TensorView input) const override;

  BasicConv2d branch3x3_1;    ///< 1x1 to 192.
  BasicConv2d branch3x3_2;    ///< 3x3 of stride 2 to 320.
  BasicConv2d branch7x7x3_1;  ///< 1x1 to 192.
  BasicConv2d branch7x7x3_2;  ///< 1x7.
  BasicConv2d branch7x7x3_3;  ///< 7x1.
  BasicConv2d branch7x7x3_4;  ///< 3x3 of stride 2.
};

/// torchvision.models.inception.InceptionE: expanded filter banks (1x3 and
/// 3x1 side by side).
class InceptionE : public nn::Module {
 public:
  /// `InceptionE(in_channels)`.
  explicit InceptionE(std::int64_t in_channels);
  void visit(nn::Visitor& visitor) override;
  /// [N, in_channels, H, W] -> [N, 2048, H, W].
  Tensor forward(TensorView input) const override;

  BasicConv2d branch1x1;        ///< 1x1 to 320.
  BasicConv2d branch3x3_1;      ///< 1x1 to 384.
  BasicConv2d branch3x3_2a;     ///< 1x3.
  BasicConv2d branch3x3_2b;     ///< 3x1.
  BasicConv2d branch3x3dbl_1;   ///< 1x1 to 448.
  BasicConv2d branch3x3dbl_2;   ///< 3x3 to 384.
  BasicConv2d branch3x3dbl_3a;  ///< 1x3.
  BasicConv2d branch3x3dbl_3b;  ///< 3x1.
  BasicConv2d branch_pool;      ///< 1x1 after the pool, to 192.
};

/// torchvision.models.inception.InceptionAux: the auxiliary classifier
/// (5x5 average pool of stride 3, 1x1 to 128, 5x5 to 768, global pool, fc).
/// Inception3 does not call it in inference.
class InceptionAux : public nn::Module {
 public:
  /// `InceptionAux(in_channels, num_classes)`.
  InceptionAux(std::int64_t in_channels, std::int64_t num_classes);
  void visit(nn::Visitor& visitor) override;
  /// [N, in_channels, 17, 17] -> [N, num_classes] logits.
  Tensor forward(TensorView input) const override;

  BasicConv2d conv0;  ///< 1x1 to 128.
  BasicConv2d conv1;  ///< 5x5 to 768.
  nn::Linear fc;      ///< 768 -> num_classes.
};

/// torchvision.models.Inception3 in eval mode: the logits of `fc` (the
/// auxiliary classifier is for training).
class Inception3 : public nn::Module {
 public:
  /// `Inception3(num_classes, aux_logits, transform_input, dropout=...)`.
  explicit Inception3(const Inception3Options& options = {});

  void visit(nn::Visitor& visitor) override;
  /// [N, 3, H, W] float images (H and W at least 75, torchvision's
  /// min_size) -> [N, num_classes] logits, a new Tensor.
  Tensor forward(TensorView input) const override;

  /// Whether forward maps the input's normalisation (Inception3Options).
  bool transform_input;
  BasicConv2d Conv2d_1a_3x3;  ///< 3x3 of stride 2 to 32.
  BasicConv2d Conv2d_2a_3x3;  ///< 3x3 to 32.
  BasicConv2d Conv2d_2b_3x3;  ///< 3x3 to 64, padded.
  nn::MaxPool2d maxpool1;     ///< 3x3 of stride 2.
  BasicConv2d Conv2d_3b_1x1;  ///< 1x1 to 80.
  BasicConv2d Conv2d_4a_3x3;  ///< 3x3 to 192.
  nn::MaxPool2d maxpool2;     ///< 3x3 of stride 2.
  InceptionA Mixed_5b;        ///< 192 -> 256 channels.
  InceptionA Mixed_5c;        ///< 256 -> 288 channels.
  InceptionA Mixed_5d;        ///< 288 -> 288 channels.
  InceptionB Mixed_6a;        ///< 288 -> 768 channels, 35 -> 17.
  InceptionC Mixed_6b;        ///< 768 channels, channels_7x7 128.
  InceptionC Mixed_6c;        ///< 768 channels, channels_7x7 160.
  InceptionC Mixed_6d;        ///< 768 channels, channels_7x7 160.
  InceptionC Mixed_6e;        ///< 768 channels, channels_7x7 192.
  /// The auxiliary classifier after Mixed_6e (with aux_logits).
  std::optional<InceptionAux> AuxLogits;
  InceptionD Mixed_7a;            ///< 768 -> 1280 channels, 17 -> 8.
  InceptionE Mixed_7b;            ///< 1280 -> 2048 channels.
  InceptionE Mixed_7c;            ///< 2048 -> 2048 channels.
  nn::AdaptiveAvgPool2d avgpool;  ///< Global average pooling.
  nn::Dropout dropout;            ///< Before `fc` (the identity in inference).
  nn::Linear fc;                  ///< 2048 -> num_classes.
};

/// https://pytorch.org/vision/stable/models/generated/torchvision.models.inception_v3.html
Inception3 inception_v3(const Inception3Options& options = {});

}  // namespace fp::vision::models
