// torchvision/models/squeezenet.py, layer for layer.
#include "flash_powder/vision/models/squeezenet.h"

#include <string>

#include "flash_powder/aten/aten.h"
#include "flash_powder/base/error.h"
#include "flash_powder/functional/activation.h"
#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/nn/layers/dropout.h"
#include "flash_powder/nn/layers/pooling.h"

namespace fp::vision::models {
namespace {

/// SqueezeNet's max-pool: 3x3, stride 2, rounding the output size up.
nn::MaxPool2d pool() {
  return nn::MaxPool2d(3, {.stride = 2, .ceil_mode = true});
}

/// torchvision's `features` of SqueezeNet 1.0.
nn::Sequential features_1_0() {
  return nn::Sequential(nn::Conv2d(3, 96, 7, {.stride = 2}), nn::ReLU(), pool(),
                        Fire(96, 16, 64, 64), Fire(128, 16, 64, 64), Fire(128, 32, 128, 128),
                        pool(), Fire(256, 32, 128, 128), Fire(256, 48, 192, 192),
                        Fire(384, 48, 192, 192), Fire(384, 64, 256, 256), pool(),
                        Fire(512, 64, 256, 256));
}

/// torchvision's `features` of SqueezeNet 1.1 (2.4x less computation).
nn::Sequential features_1_1() {
  return nn::Sequential(nn::Conv2d(3, 64, 3, {.stride = 2}), nn::ReLU(), pool(),
                        Fire(64, 16, 64, 64), Fire(128, 16, 64, 64), pool(),
                        Fire(128, 32, 128, 128), Fire(256, 32, 128, 128), pool(),
                        Fire(256, 48, 192, 192), Fire(384, 48, 192, 192), Fire(384, 64, 256, 256),
                        Fire(512, 64, 256, 256));
}

nn::Sequential features_of(const std::string& version) {
  if (version == "1_0") return features_1_0();
  if (version == "1_1") return features_1_1();
  throw Error(ErrorCode::BadArgument,
              "fp::vision::models::SqueezeNet: version should be 1_0 or 1_1, not " + version);
}

}  // namespace

Fire::Fire(std::int64_t inplanes, std::int64_t squeeze_planes, std::int64_t expand1x1_planes,
           std::int64_t expand3x3_planes)
    : squeeze(inplanes, squeeze_planes, 1),
      expand1x1(squeeze_planes, expand1x1_planes, 1),
      expand3x3(squeeze_planes, expand3x3_planes, 3, {.padding = 1}) {}

void Fire::visit(nn::Visitor& visitor) {
  visitor.child("squeeze", squeeze);
  visitor.child("expand1x1", expand1x1);
  visitor.child("expand3x3", expand3x3);
}

Tensor Fire::forward(TensorView input) const {
  const Tensor squeezed = functional::relu(squeeze(input));
  return aten::cat({functional::relu(expand1x1(squeezed)), functional::relu(expand3x3(squeezed))},
                   1);
}

SqueezeNet::SqueezeNet(const std::string& version, const SqueezeNetOptions& options)
    : features(features_of(version)),
      classifier(nn::Dropout(options.dropout), nn::Conv2d(512, options.num_classes, 1), nn::ReLU(),
                 nn::AdaptiveAvgPool2d({1, 1})) {}

void SqueezeNet::visit(nn::Visitor& visitor) {
  visitor.child("features", features);
  visitor.child("classifier", classifier);
}

Tensor SqueezeNet::forward(TensorView input) const {
  return classifier(features(input)).flatten(1);
}

SqueezeNet squeezenet1_0(const SqueezeNetOptions& options) {
  return SqueezeNet("1_0", options);
}
SqueezeNet squeezenet1_1(const SqueezeNetOptions& options) {
  return SqueezeNet("1_1", options);
}

}  // namespace fp::vision::models
