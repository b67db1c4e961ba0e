// torchvision/models/vgg.py, layer for layer.
#include "flash_powder/vision/models/vgg.h"

#include <array>

#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/layers/dropout.h"
#include "flash_powder/nn/layers/linear.h"
#include "flash_powder/nn/layers/normalization.h"

namespace fp::vision::models {
namespace {

constexpr int M = kMaxPool;
// torchvision's cfgs "A", "B", "D" and "E".
constexpr std::array kConfigA{64, M, 128, M, 256, 256, M, 512, 512, M, 512, 512, M};
constexpr std::array kConfigB{64, 64, M, 128, 128, M, 256, 256, M, 512, 512, M, 512, 512, M};
constexpr std::array kConfigD{64, 64,  M,   128, 128, M,   256, 256, 256,
                              M,  512, 512, 512, M,   512, 512, 512, M};
constexpr std::array kConfigE{64,  64,  M,   128, 128, M,   256, 256, 256, 256, M,
                              512, 512, 512, 512, M,   512, 512, 512, 512, M};

nn::Sequential make_classifier(const VGGOptions& options) {
  return nn::Sequential(nn::Linear(std::int64_t{512} * 7 * 7, 4096), nn::ReLU(),
                        nn::Dropout(options.dropout), nn::Linear(4096, 4096), nn::ReLU(),
                        nn::Dropout(options.dropout), nn::Linear(4096, options.num_classes));
}

}  // namespace

nn::Sequential make_vgg_layers(std::span<const int> config, bool batch_norm) {
  nn::Sequential layers;
  std::int64_t in_channels = 3;
  for (const int entry : config) {
    if (entry == kMaxPool) {
      layers.push(nn::MaxPool2d(2, {.stride = 2}));
      continue;
    }
    layers.push(nn::Conv2d(in_channels, entry, 3, {.padding = 1}));
    if (batch_norm) layers.push(nn::BatchNorm2d(entry));
    layers.push(nn::ReLU());
    in_channels = entry;
  }
  return layers;
}

VGG::VGG(nn::Sequential features, const VGGOptions& options)
    : features(std::move(features)), classifier(make_classifier(options)) {}

void VGG::visit(nn::Visitor& visitor) {
  visitor.child("features", features);
  visitor.child("avgpool", avgpool);
  visitor.child("classifier", classifier);
}

Tensor VGG::forward(TensorView input) const {
  const Tensor pooled = avgpool(features(input));
  return classifier(pooled.flatten(1));
}

VGG vgg11(const VGGOptions& options) {
  return VGG(make_vgg_layers(kConfigA, false), options);
}
VGG vgg11_bn(const VGGOptions& options) {
  return VGG(make_vgg_layers(kConfigA, true), options);
}
VGG vgg13(const VGGOptions& options) {
  return VGG(make_vgg_layers(kConfigB, false), options);
}
VGG vgg13_bn(const VGGOptions& options) {
  return VGG(make_vgg_layers(kConfigB, true), options);
}
VGG vgg16(const VGGOptions& options) {
  return VGG(make_vgg_layers(kConfigD, false), options);
}
VGG vgg16_bn(const VGGOptions& options) {
  return VGG(make_vgg_layers(kConfigD, true), options);
}
VGG vgg19(const VGGOptions& options) {
  return VGG(make_vgg_layers(kConfigE, false), options);
}
VGG vgg19_bn(const VGGOptions& options) {
  return VGG(make_vgg_layers(kConfigE, true), options);
}

}  // namespace fp::vision::models
