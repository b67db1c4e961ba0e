// torch.nn.Flatten.
#pragma once

#include <cstdint>

#include "flash_powder/nn/module.h"

namespace fp::nn {

/// Flattens dimensions start_dim..end_dim into one.
/// https://pytorch.org/docs/stable/generated/torch.nn.Flatten.html
class Flatten : public Module {
 public:
  /// Flattens the dimensions from `start_dim` to `end_dim` into one.
  explicit Flatten(std::int64_t start_dim = 1, std::int64_t end_dim = -1)
      : start_dim(start_dim), end_dim(end_dim) {}
  Tensor forward(TensorView input) const override;
  /// The first dimension flattened.
  std::int64_t start_dim;
  /// The last dimension flattened.
  std::int64_t end_dim;
};

}  // namespace fp::nn
