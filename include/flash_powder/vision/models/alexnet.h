// torchvision's AlexNet, with its state-dict keys ("features.0.weight",
// "classifier.1.weight", ...).
// https://pytorch.org/vision/stable/models/alexnet.html
//
//     auto net = fp::vision::models::alexnet();
//     net.load_state_dict(fp::safetensors::MappedFile::open("alexnet.safetensors"));
//     fp::Tensor logits = net(batch);  // [N, 1000]
#pragma once

#include <cstdint>

#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/layers/pooling.h"
#include "flash_powder/nn/module.h"

namespace fp::vision::models {

/// The keyword arguments of torchvision's alexnet.
struct AlexNetOptions {
  /// The number of classes the classifier maps to (fp::Error when negative).
  std::int64_t num_classes = 1000;
  /// The classifier's dropout probability; the identity in inference.
  double dropout = 0.5;
};

/// torchvision.models.AlexNet: `features` (five convolutions, three
/// max-pools), `avgpool` (adaptive, to 6x6, so any input of at least 63x63
/// works), `classifier` (three linear layers).
class AlexNet : public nn::Module {
 public:
  /// `AlexNet(num_classes, dropout)`.
  explicit AlexNet(const AlexNetOptions& options = {});

  void visit(nn::Visitor& visitor) override;
  /// [N, 3, H, W] float images -> [N, num_classes] logits.
  Tensor forward(TensorView input) const override;

  /// Five convolutions with ReLU, three max-pools.
  nn::Sequential features;
  /// Adaptive average pooling to 6x6.
  nn::AdaptiveAvgPool2d avgpool{{6, 6}};
  /// Dropout, linear, ReLU, dropout, linear, ReLU, linear.
  nn::Sequential classifier;
};

/// https://pytorch.org/vision/stable/models/generated/torchvision.models.alexnet.html
AlexNet alexnet(const AlexNetOptions& options = {});

}  // namespace fp::vision::models
