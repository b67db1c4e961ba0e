// Activation layers: torch.nn.ReLU, GELU, SiLU, Softmax, ...
// https://pytorch.org/docs/stable/nn.html#non-linear-activations-weighted-sum-nonlinearity
//
// Each applies the fp::functional function of the same name (see there for
// exactness notes) and has no parameters, except PReLU (`weight`). Python's
// `inplace=` is not offered: forward() never changes its input.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "flash_powder/base/device.h"
#include "flash_powder/base/dtype.h"
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

/// https://pytorch.org/docs/stable/generated/torch.nn.Hardsigmoid.html
class Hardsigmoid : public Module {
 public:
  Tensor forward(TensorView input) const override;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.Mish.html
class Mish : public Module {
 public:
  Tensor forward(TensorView input) const override;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.SELU.html
class SELU : public Module {
 public:
  Tensor forward(TensorView input) const override;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.CELU.html
class CELU : public Module {
 public:
  explicit CELU(double alpha = 1.0) : alpha(alpha) {}
  Tensor forward(TensorView input) const override;
  double alpha;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.LogSigmoid.html
class LogSigmoid : public Module {
 public:
  Tensor forward(TensorView input) const override;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.Softsign.html
class Softsign : public Module {
 public:
  Tensor forward(TensorView input) const override;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.Tanhshrink.html
class Tanhshrink : public Module {
 public:
  Tensor forward(TensorView input) const override;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.Softplus.html
class Softplus : public Module {
 public:
  explicit Softplus(double beta = 1.0, double threshold = 20.0)
      : beta(beta), threshold(threshold) {}
  Tensor forward(TensorView input) const override;
  double beta;
  double threshold;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.Softshrink.html
class Softshrink : public Module {
 public:
  explicit Softshrink(double lambd = 0.5) : lambd(lambd) {}
  Tensor forward(TensorView input) const override;
  double lambd;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.Hardshrink.html
class Hardshrink : public Module {
 public:
  explicit Hardshrink(double lambd = 0.5) : lambd(lambd) {}
  Tensor forward(TensorView input) const override;
  double lambd;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.Hardtanh.html
class Hardtanh : public Module {
 public:
  /// Throws fp::Error unless max_val > min_val, as PyTorch does.
  explicit Hardtanh(double min_val = -1.0, double max_val = 1.0);
  Tensor forward(TensorView input) const override;
  double min_val;
  double max_val;
};

/// x if x > threshold else value.
/// https://pytorch.org/docs/stable/generated/torch.nn.Threshold.html
class Threshold : public Module {
 public:
  Threshold(double threshold, double value) : threshold(threshold), value(value) {}
  Tensor forward(TensorView input) const override;
  double threshold;
  double value;
};

/// Eval mode, the only one here: leaky_relu with the slope (lower + upper) / 2.
/// https://pytorch.org/docs/stable/generated/torch.nn.RReLU.html
class RReLU : public Module {
 public:
  explicit RReLU(double lower = 1.0 / 8, double upper = 1.0 / 3) : lower(lower), upper(upper) {}
  Tensor forward(TensorView input) const override;
  double lower;
  double upper;
};

/// a * sigmoid(b) of the input's halves along `dim`.
/// https://pytorch.org/docs/stable/generated/torch.nn.GLU.html
class GLU : public Module {
 public:
  explicit GLU(std::int64_t dim = -1) : dim(dim) {}
  Tensor forward(TensorView input) const override;
  std::int64_t dim;
};

/// Without a dim, PyTorch's legacy choice: 0 for 0-, 1- and 3-D input, else 1.
/// https://pytorch.org/docs/stable/generated/torch.nn.Softmin.html
class Softmin : public Module {
 public:
  explicit Softmin(std::optional<std::int64_t> dim = std::nullopt) : dim(dim) {}
  Tensor forward(TensorView input) const override;
  std::optional<std::int64_t> dim;
};

/// Softmax over the channels (dimension -3) of a [C, H, W] or [N, C, H, W] input.
/// https://pytorch.org/docs/stable/generated/torch.nn.Softmax2d.html
class Softmax2d : public Module {
 public:
  Tensor forward(TensorView input) const override;
};

struct PReLUOptions {
  std::optional<Device> device{};
  /// float32 when absent.
  std::optional<DType> dtype{};
};

/// x if x > 0 else weight * x. Parameter `weight` [num_parameters], filled
/// with `init`: one slope, or one per channel (dimension 1 of the input).
/// https://pytorch.org/docs/stable/generated/torch.nn.PReLU.html
class PReLU : public Module {
 public:
  explicit PReLU(std::int64_t num_parameters = 1, double init = 0.25,
                 const PReLUOptions& options = {});

  void visit(Visitor& visitor) override;
  Tensor forward(TensorView input) const override;

  std::int64_t num_parameters;
  double init;
  Tensor weight;
};

}  // namespace fp::nn
