// Non-linear activations: torch.nn.functional.relu, gelu, softmax, ...
// https://pytorch.org/docs/stable/nn.functional.html#non-linear-activation-functions
//
// Each returns a new Tensor and equals Python's result bit for bit, except
// where a doc comment says otherwise.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "flash_powder/base/dtype.h"
#include "flash_powder/core/tensor.h"
#include "flash_powder/core/tensor_arg.h"

namespace fp::functional {

/// https://pytorch.org/docs/stable/generated/torch.nn.functional.relu.html
Tensor relu(TensorArg input);
/// min(max(0, x), 6). https://pytorch.org/docs/stable/generated/torch.nn.functional.relu6.html
Tensor relu6(TensorArg input);
/// x * sigmoid(x). https://pytorch.org/docs/stable/generated/torch.nn.functional.silu.html
Tensor silu(TensorArg input);
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.sigmoid.html
Tensor sigmoid(TensorArg input);
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.tanh.html
Tensor tanh(TensorArg input);
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.hardswish.html
Tensor hardswish(TensorArg input);

/// The keyword arguments of leaky_relu, with PyTorch's defaults.
struct LeakyReluOptions {
  /// The slope for negative inputs.
  double negative_slope = 0.01;
};
/// x if x > 0 else negative_slope * x.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.leaky_relu.html
///
/// `aten::leaky_relu` takes a Scalar, which the stable ABI cannot carry, so
/// this computes `where(x > 0, x, x * negative_slope)`: the same single
/// multiplication, bit-exact with Python's for every floating dtype.
Tensor leaky_relu(const TensorView& input, const LeakyReluOptions& options = {});

/// The keyword arguments of elu, with PyTorch's defaults.
struct EluOptions {
  /// The scale of the negative part.
  double alpha = 1.0;
};
/// x if x > 0 else alpha * (exp(x) - 1).
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.elu.html
///
/// `aten::elu` takes Scalars, which the stable ABI cannot carry, so this
/// computes `where(x >= 0, x, expm1(x) * alpha)` (float16/bfloat16 in float32,
/// as libtorch does). Equal to Python's except in the few elements libtorch's
/// kernel computes in its scalar remainder loop (with the C library's expm1
/// rather than the vectorised one); there the two differ by at most 1 ulp.
Tensor elu(const TensorView& input, const EluOptions& options = {});

/// The keyword arguments of gelu, with PyTorch's defaults.
struct GeluOptions {
  /// "none" (the exact erf form) or "tanh" (the tanh approximation).
  std::string approximate = "none";
};
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.gelu.html
Tensor gelu(const TensorView& input, const GeluOptions& options = {});

/// The keyword arguments of softmax and log_softmax.
struct SoftmaxOptions {
  /// Converts the input to this dtype first (Python's `dtype=`).
  std::optional<DType> dtype{};
};
/// exp(x) / sum(exp(x)) along `dim` (negative counts from the end).
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.softmax.html
Tensor softmax(const TensorView& input, std::int64_t dim, const SoftmaxOptions& options = {});
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.log_softmax.html
Tensor log_softmax(const TensorView& input, std::int64_t dim, const SoftmaxOptions& options = {});

}  // namespace fp::functional
