// torch.nn.Flatten and Unflatten.
#pragma once

#include <cstdint>
#include <vector>

#include "flash_powder/core/array_ref.h"
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

/// Expands dimension `dim` into `unflattened_size` (one entry may be -1).
/// Throws fp::Error with libtorch's message when the sizes do not multiply
/// to the dimension's size. https://pytorch.org/docs/stable/generated/torch.nn.Unflatten.html
class Unflatten : public Module {
 public:
  Unflatten(std::int64_t dim, IntList unflattened_size)
      : dim(dim), unflattened_size(unflattened_size.begin(), unflattened_size.end()) {}
  Tensor forward(TensorView input) const override;
  std::int64_t dim;
  std::vector<std::int64_t> unflattened_size;
};

}  // namespace fp::nn
