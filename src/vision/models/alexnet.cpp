// torchvision/models/alexnet.py, layer for layer.
#include "flash_powder/vision/models/alexnet.h"

#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/layers/dropout.h"
#include "flash_powder/nn/layers/linear.h"

namespace fp::vision::models {

AlexNet::AlexNet(const AlexNetOptions& options)
    : features(nn::Conv2d(3, 64, 11, {.stride = 4, .padding = 2}), nn::ReLU(),
               nn::MaxPool2d(3, {.stride = 2}), nn::Conv2d(64, 192, 5, {.padding = 2}), nn::ReLU(),
               nn::MaxPool2d(3, {.stride = 2}), nn::Conv2d(192, 384, 3, {.padding = 1}), nn::ReLU(),
               nn::Conv2d(384, 256, 3, {.padding = 1}), nn::ReLU(),
               nn::Conv2d(256, 256, 3, {.padding = 1}), nn::ReLU(),
               nn::MaxPool2d(3, {.stride = 2})),
      classifier(nn::Dropout(options.dropout), nn::Linear(std::int64_t{256} * 6 * 6, 4096),
                 nn::ReLU(), nn::Dropout(options.dropout), nn::Linear(4096, 4096), nn::ReLU(),
                 nn::Linear(4096, options.num_classes)) {}

void AlexNet::visit(nn::Visitor& visitor) {
  visitor.child("features", features);
  visitor.child("avgpool", avgpool);
  visitor.child("classifier", classifier);
}

Tensor AlexNet::forward(TensorView input) const {
  return classifier(avgpool(features(input)).flatten(1));
}

AlexNet alexnet(const AlexNetOptions& options) {
  return AlexNet(options);
}

}  // namespace fp::vision::models
