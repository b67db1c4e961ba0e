// Activation layers: torch.nn.ReLU, GELU, SiLU, Softmax, ...
// https://pytorch.org/docs/stable/nn.html#non-linear-activations-weighted-sum-nonlinearity
//
// Each applies the fp::functional function of the same name (see there for
// exactness notes) and has no parameters. Python's `inplace=` is not offered:
// forward() never changes its input.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "flash_powder/nn/module.h"

namespace fp::nn {

/// https://pytorch.org/docs/stable/generated/torch.nn.ReLU.html
class ReLU : public Module {
 public:
  Tensor forward(TensorView input) const override;
  /// Floating-point inputs: `torch.relu_`, the kernel of forward() (what
  /// torchvision's `ReLU(inplace=True)` runs).
  bool forward_in_place(Tensor& x) const override;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.ReLU6.html
class ReLU6 : public Module {
 public:
  Tensor forward(TensorView input) const override;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.LeakyReLU.html
class LeakyReLU : public Module {
 public:
  /// x if x > 0 else negative_slope * x.
  explicit LeakyReLU(double negative_slope = 0.01) : negative_slope(negative_slope) {}
  Tensor forward(TensorView input) const override;
  /// The slope for negative inputs.
  double negative_slope;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.ELU.html
class ELU : public Module {
 public:
  /// x if x > 0 else alpha * (exp(x) - 1).
  explicit ELU(double alpha = 1.0) : alpha(alpha) {}
  Tensor forward(TensorView input) const override;
  /// The scale of the negative part.
  double alpha;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.GELU.html
class GELU : public Module {
 public:
  /// "none" or "tanh".
  explicit GELU(std::string approximate = "none") : approximate(std::move(approximate)) {}
  Tensor forward(TensorView input) const override;
  /// "none" (the exact erf form) or "tanh".
  std::string approximate;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.SiLU.html
class SiLU : public Module {
 public:
  Tensor forward(TensorView input) const override;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.Sigmoid.html
class Sigmoid : public Module {
 public:
  Tensor forward(TensorView input) const override;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.Tanh.html
class Tanh : public Module {
 public:
  Tensor forward(TensorView input) const override;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.Hardswish.html
class Hardswish : public Module {
 public:
  Tensor forward(TensorView input) const override;
};

/// Without a dim, PyTorch's legacy choice: 0 for 0-, 1- and 3-D input, else 1.
/// https://pytorch.org/docs/stable/generated/torch.nn.Softmax.html
class Softmax : public Module {
 public:
  /// Softmax along `dim` (negative counts from the end); Python's implicit choice when absent.
  explicit Softmax(std::optional<std::int64_t> dim = std::nullopt) : dim(dim) {}
  Tensor forward(TensorView input) const override;
  /// The dimension softmax runs along.
  std::optional<std::int64_t> dim;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.LogSoftmax.html
class LogSoftmax : public Module {
 public:
  /// Log-softmax along `dim` (negative counts from the end); Python's implicit choice when absent.
  explicit LogSoftmax(std::optional<std::int64_t> dim = std::nullopt) : dim(dim) {}
  Tensor forward(TensorView input) const override;
  /// The dimension log-softmax runs along.
  std::optional<std::int64_t> dim;
};

}  // namespace fp::nn
