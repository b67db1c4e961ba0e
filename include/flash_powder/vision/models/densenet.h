// torchvision's DenseNet-BC 121, 161, 169 and 201, with its state-dict keys
// ("features.conv0.weight", "features.denseblock1.denselayer1.norm1.weight",
// "features.transition1.conv.weight", "features.norm5.running_var",
// "classifier.bias", ...).
// https://pytorch.org/vision/stable/models/densenet.html
//
//     auto net = fp::vision::models::densenet121();
//     net.load_state_dict(fp::safetensors::MappedFile::open("densenet121.safetensors"));
//     fp::Tensor logits = net(batch);  // [N, 1000]
//
// torchvision's pretrained checkpoint files have older keys
// ("denselayer1.norm.1.weight"), which torchvision renames as it loads them
// ("denselayer1.norm1.weight"); the state dict of torchvision's model, which
// tools/convert_torchvision_weights.py saves, has the new keys, as these
// networks have.
#pragma once

#include <cstdint>
#include <vector>

#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/layers/linear.h"
#include "flash_powder/nn/layers/normalization.h"
#include "flash_powder/nn/layers/pooling.h"
#include "flash_powder/nn/module.h"

namespace fp::vision::models {

/// The keyword arguments of torchvision's densenet constructors.
struct DenseNetOptions {
  /// The number of classes `classifier` maps to (fp::Error when negative).
  std::int64_t num_classes = 1000;
  /// The bottleneck's width in multiples of the growth rate: each dense
  /// layer's 1x1 convolution has `bn_size * growth_rate` output channels.
  std::int64_t bn_size = 4;
  /// The dropout probability after each dense layer; the identity in
  /// inference. fp::Error above 1 (torchvision's forward refuses it).
  double drop_rate = 0.0;
  /// Recomputes the bottlenecks in the backward pass instead of keeping them
  /// (gradient checkpointing), a training option: accepted and without
  /// effect in inference, as in torchvision's eval mode.
  bool memory_efficient = false;
};

/// torchvision.models.densenet._DenseLayer: BatchNorm, ReLU, 1x1 convolution
/// to `bn_size * growth_rate` channels, BatchNorm, ReLU, 3x3 convolution to
/// `growth_rate` channels (no biases).
class DenseLayer : public nn::Module {
 public:
  /// `_DenseLayer(num_input_features, growth_rate, bn_size, drop_rate,
  /// memory_efficient)`; see DenseNetOptions for the last two.
  DenseLayer(std::int64_t num_input_features, std::int64_t growth_rate, std::int64_t bn_size,
             double drop_rate, bool memory_efficient = false);

  void visit(nn::Visitor& visitor) override;
  /// The concatenation of the block's input and of the earlier layers'
  /// outputs ([N, num_input_features, H, W]; torchvision's layer
  /// concatenates the list itself) -> [N, growth_rate, H, W], a new Tensor.
  Tensor forward(TensorView input) const override;

  /// The BatchNorm of the concatenated features.
  nn::BatchNorm2d norm1;
  /// ReLU (no keys).
  nn::ReLU relu1;
  /// The 1x1 bottleneck convolution.
  nn::Conv2d conv1;
  /// The BatchNorm of the bottleneck.
  nn::BatchNorm2d norm2;
  /// ReLU (no keys).
  nn::ReLU relu2;
  /// The 3x3 convolution to the new features.
  nn::Conv2d conv2;
  /// The dropout probability of the new features (the identity in inference).
  double drop_rate;
  /// Accepted for torchvision's sake; no effect in inference.
  bool memory_efficient;
};

/// torchvision.models.densenet._DenseBlock: `num_layers` DenseLayers
/// ("denselayer1", "denselayer2", ...), each reading the block's input and
/// every earlier layer's output, concatenated along the channels.
class DenseBlock : public nn::Module {
 public:
  /// `_DenseBlock(num_layers, num_input_features, bn_size, growth_rate,
  /// drop_rate, memory_efficient)`: layer i (from 0) reads
  /// `num_input_features + i * growth_rate` channels.
  DenseBlock(std::int64_t num_layers, std::int64_t num_input_features, std::int64_t bn_size,
             std::int64_t growth_rate, double drop_rate, bool memory_efficient = false);

  void visit(nn::Visitor& visitor) override;
  /// [N, C, H, W] -> [N, C + num_layers * growth_rate, H, W]: the input and
  /// every layer's output, concatenated (a new Tensor).
  Tensor forward(TensorView input) const override;

  /// The dense layers, registered as "denselayer1", "denselayer2", ...
  std::vector<DenseLayer> layers;
};

/// torchvision.models.densenet._Transition: BatchNorm, ReLU, 1x1 convolution
/// (no bias), 2x2 average pooling of stride 2.
class Transition : public nn::Module {
 public:
  /// `_Transition(num_input_features, num_output_features)`.
  Transition(std::int64_t num_input_features, std::int64_t num_output_features);

  void visit(nn::Visitor& visitor) override;
  /// [N, num_input_features, H, W] -> [N, num_output_features, H / 2, W / 2],
  /// a new Tensor.
  Tensor forward(TensorView input) const override;

  /// The BatchNorm of the block's output.
  nn::BatchNorm2d norm;
  /// ReLU (no keys).
  nn::ReLU relu;
  /// The 1x1 convolution that reduces the channels.
  nn::Conv2d conv;
  /// 2x2 average pooling of stride 2 (no keys).
  nn::AvgPool2d pool;
};

/// torchvision.models.DenseNet: `features` ("conv0", "norm0", "relu0",
/// "pool0", then "denseblock1", "transition1", ..., the last dense block and
/// "norm5"), ReLU, global average pooling and `classifier`.
class DenseNet : public nn::Module {
 public:
  /// `DenseNet(growth_rate, block_config, num_init_features, ...)`: the
  /// channels each dense layer adds, the dense layers of each block, and
  /// the stem's output channels; the keyword arguments in `options`.
  /// The defaults are densenet121's.
  explicit DenseNet(std::int64_t growth_rate = 32,
                    const std::vector<std::int64_t>& block_config = {6, 12, 24, 16},
                    std::int64_t num_init_features = 64, const DenseNetOptions& options = {});

  void visit(nn::Visitor& visitor) override;
  /// [N, 3, H, W] float images (H and W at least 29, torchvision's min_size)
  /// -> [N, num_classes] logits, a new Tensor.
  Tensor forward(TensorView input) const override;

  /// The stem, the dense blocks and transitions, and the final BatchNorm
  /// ("norm5"), under torchvision's names.
  nn::Sequential features;
  /// The linear classifier of the pooled features.
  nn::Linear classifier;
};

/// DenseNet-121: growth rate 32, blocks of 6, 12, 24 and 16 layers, 64 stem channels.
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.densenet121.html
DenseNet densenet121(const DenseNetOptions& options = {});
/// DenseNet-161: growth rate 48, blocks of 6, 12, 36 and 24 layers, 96 stem channels.
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.densenet161.html
DenseNet densenet161(const DenseNetOptions& options = {});
/// DenseNet-169: growth rate 32, blocks of 6, 12, 32 and 32 layers, 64 stem channels.
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.densenet169.html
DenseNet densenet169(const DenseNetOptions& options = {});
/// DenseNet-201: growth rate 32, blocks of 6, 12, 48 and 32 layers, 64 stem channels.
/// https://pytorch.org/vision/stable/models/generated/torchvision.models.densenet201.html
DenseNet densenet201(const DenseNetOptions& options = {});

}  // namespace fp::vision::models
