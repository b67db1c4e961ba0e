// torchvision.ops.StochasticDepth, which ConvNeXt's and EfficientNet's
// blocks hold. https://pytorch.org/vision/stable/generated/torchvision.ops.StochasticDepth.html
#pragma once

#include <string>

#include "flash_powder/nn/module.h"

namespace fp::vision::ops {

/// torchvision.ops.StochasticDepth: drops residual branches at random in
/// training, the identity in inference (which is all it does here).
class StochasticDepth : public nn::Module {
 public:
  /// Throws fp::Error, with torchvision's words, unless 0 <= p <= 1 and
  /// `mode` is "batch" or "row" (torchvision checks them in forward).
  explicit StochasticDepth(double p, std::string mode = "row");
  /// `input` itself, as a new Tensor (a lazy clone).
  Tensor forward(TensorView input) const override;
  /// The probability of dropping a branch in training.
  double p;
  /// "batch" (one draw for the batch) or "row" (one per sample).
  std::string mode;
};

}  // namespace fp::vision::ops
