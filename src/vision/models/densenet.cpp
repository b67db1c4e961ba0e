// torchvision/models/densenet.py, layer for layer.
#include "flash_powder/vision/models/densenet.h"

#include <string>
#include <vector>

#include "base/text.h"
#include "flash_powder/aten/aten.h"
#include "flash_powder/base/error.h"
#include "flash_powder/functional/activation.h"
#include "flash_powder/functional/pooling.h"

namespace fp::vision::models {
namespace {

/// torchvision applies F.dropout(p=drop_rate) after each dense layer when
/// drop_rate > 0, which refuses a probability above 1 even in eval mode;
/// here the constructor refuses it, with the same message.
double checked_drop_rate(double drop_rate) {
  if (drop_rate > 1.0)
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::DenseNet: dropout probability has to be between 0 and 1, "
                "but got " +
                    fp::detail::python_float(drop_rate));
  return drop_rate;
}

/// The stem: 7x7 convolution of stride 2, BatchNorm, ReLU, 3x3 max-pool of stride 2.
nn::Sequential stem(std::int64_t num_init_features) {
  nn::Sequential features;
  features.push("conv0",
                nn::Conv2d(3, num_init_features, 7, {.stride = 2, .padding = 3, .bias = false}));
  features.push("norm0", nn::BatchNorm2d(num_init_features));
  features.push("relu0", nn::ReLU());
  features.push("pool0", nn::MaxPool2d(3, {.stride = 2, .padding = 1}));
  return features;
}

/// The channels that reach norm5 and the classifier.
std::int64_t final_features(std::int64_t growth_rate, const std::vector<std::int64_t>& block_config,
                            std::int64_t num_init_features) {
  std::int64_t num_features = num_init_features;
  for (std::size_t i = 0; i < block_config.size(); ++i) {
    num_features += block_config[i] * growth_rate;
    if (i + 1 != block_config.size()) num_features /= 2;
  }
  return num_features;
}

}  // namespace

DenseLayer::DenseLayer(std::int64_t num_input_features, std::int64_t growth_rate,
                       std::int64_t bn_size, double drop_rate, bool memory_efficient)
    : norm1(num_input_features),
      conv1(num_input_features, bn_size * growth_rate, 1, {.bias = false}),
      norm2(bn_size * growth_rate),
      conv2(bn_size * growth_rate, growth_rate, 3, {.padding = 1, .bias = false}),
      drop_rate(checked_drop_rate(drop_rate)),
      memory_efficient(memory_efficient) {}

void DenseLayer::visit(nn::Visitor& visitor) {
  visitor.child("norm1", norm1);
  visitor.child("relu1", relu1);
  visitor.child("conv1", conv1);
  visitor.child("norm2", norm2);
  visitor.child("relu2", relu2);
  visitor.child("conv2", conv2);
}

Tensor DenseLayer::forward(TensorView input) const {
  // bn_function, then conv2(relu2(norm2(.))); dropout is the identity in
  // inference, and memory_efficient's checkpointing applies to training only.
  const Tensor bottleneck = conv1(relu1(norm1(input)));
  return conv2(relu2(norm2(bottleneck)));
}

DenseBlock::DenseBlock(std::int64_t num_layers, std::int64_t num_input_features,
                       std::int64_t bn_size, std::int64_t growth_rate, double drop_rate,
                       bool memory_efficient) {
  if (num_layers < 0)
    throw Error(ErrorCode::BadArgument, "fp::vision::models::DenseBlock: num_layers (" +
                                            std::to_string(num_layers) +
                                            ") should not be negative");
  layers.reserve(static_cast<std::size_t>(num_layers));
  for (std::int64_t i = 0; i < num_layers; ++i)
    layers.emplace_back(num_input_features + i * growth_rate, growth_rate, bn_size, drop_rate,
                        memory_efficient);
}

void DenseBlock::visit(nn::Visitor& visitor) {
  for (std::size_t i = 0; i < layers.size(); ++i)
    visitor.child("denselayer" + std::to_string(i + 1), layers[i]);
}

Tensor DenseBlock::forward(TensorView input) const {
  // torchvision hands each layer the list of features so far, which the
  // layer concatenates (bn_function): the same cat, made here.
  std::vector<Tensor> outputs;
  outputs.reserve(layers.size());
  std::vector<TensorView> features{input};
  features.reserve(layers.size() + 1);
  for (const DenseLayer& layer : layers) {
    outputs.push_back(layer(aten::cat(features, 1)));
    features.emplace_back(outputs.back());
  }
  return aten::cat(features, 1);
}

Transition::Transition(std::int64_t num_input_features, std::int64_t num_output_features)
    : norm(num_input_features),
      conv(num_input_features, num_output_features, 1, {.bias = false}),
      pool(2, {.stride = 2}) {}

void Transition::visit(nn::Visitor& visitor) {
  visitor.child("norm", norm);
  visitor.child("relu", relu);
  visitor.child("conv", conv);
  visitor.child("pool", pool);
}

Tensor Transition::forward(TensorView input) const {
  return pool(conv(relu(norm(input))));
}

DenseNet::DenseNet(std::int64_t growth_rate, const std::vector<std::int64_t>& block_config,
                   std::int64_t num_init_features, const DenseNetOptions& options)
    : features(stem(num_init_features)),
      classifier(final_features(growth_rate, block_config, num_init_features),
                 options.num_classes) {
  checked_drop_rate(options.drop_rate);
  std::int64_t num_features = num_init_features;
  for (std::size_t i = 0; i < block_config.size(); ++i) {
    const std::string number = std::to_string(i + 1);
    features.push("denseblock" + number,
                  DenseBlock(block_config[i], num_features, options.bn_size, growth_rate,
                             options.drop_rate, options.memory_efficient));
    num_features += block_config[i] * growth_rate;
    if (i + 1 != block_config.size()) {
      features.push("transition" + number, Transition(num_features, num_features / 2));
      num_features /= 2;
    }
  }
  features.push("norm5", nn::BatchNorm2d(num_features));
}

void DenseNet::visit(nn::Visitor& visitor) {
  visitor.child("features", features);
  visitor.child("classifier", classifier);
}

Tensor DenseNet::forward(TensorView input) const {
  const Tensor out = functional::relu(features(input));
  return classifier(functional::adaptive_avg_pool2d(out, {1, 1}).flatten(1));
}

DenseNet densenet121(const DenseNetOptions& options) {
  return DenseNet(32, {6, 12, 24, 16}, 64, options);
}
DenseNet densenet161(const DenseNetOptions& options) {
  return DenseNet(48, {6, 12, 36, 24}, 96, options);
}
DenseNet densenet169(const DenseNetOptions& options) {
  return DenseNet(32, {6, 12, 32, 32}, 64, options);
}
DenseNet densenet201(const DenseNetOptions& options) {
  return DenseNet(32, {6, 12, 48, 32}, 64, options);
}

}  // namespace fp::vision::models
