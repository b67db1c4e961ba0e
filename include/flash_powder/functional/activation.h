// Non-linear activations: torch.nn.functional.relu, gelu, softmax, ...
// https://pytorch.org/docs/stable/nn.functional.html#non-linear-activation-functions
//
// Each returns a new Tensor and equals Python's result bit for bit, except
// where a doc comment says otherwise; a NaN result is NaN, but its payload
// bits are not promised (libtorch's own vectorised and scalar loops write
// different NaNs for float16 and bfloat16). The in-place forms (relu_, elu_,
// ...) are in functional/activation_inplace.h.
//
// Where libtorch's kernel takes a Python number (a Scalar: threshold,
// hardtanh's bounds, softplus' beta, ...), which the stable ABI cannot carry,
// the function composes ATen ops that round as that kernel does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "flash_powder/base/dtype.h"
#include "flash_powder/core/generator.h"
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
/// relu6(x + 3) / 6. https://pytorch.org/docs/stable/generated/torch.nn.functional.hardsigmoid.html
Tensor hardsigmoid(TensorArg input);
/// x * tanh(softplus(x)). https://pytorch.org/docs/stable/generated/torch.nn.functional.mish.html
Tensor mish(TensorArg input);
/// scale * elu(x, alpha) with PyTorch's fixed constants.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.selu.html
Tensor selu(TensorArg input);
/// log(sigmoid(x)). https://pytorch.org/docs/stable/generated/torch.nn.functional.logsigmoid.html
Tensor logsigmoid(TensorArg input);
/// x / (1 + |x|), as Python computes it (integers give float32).
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.softsign.html
Tensor softsign(TensorArg input);
/// x - tanh(x), as Python computes it (integers give float32).
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.tanhshrink.html
Tensor tanhshrink(TensorArg input);

/// x if x > 0 else weight * x; `weight` holds one value, or one per channel
/// (dimension 1 of an input of two or more dimensions; other inputs have one).
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.prelu.html
Tensor prelu(const TensorView& input, const TensorView& weight);

struct GluOptions {
  std::int64_t dim = -1;
};
/// a * sigmoid(b), where a and b are the halves of the input along `dim`.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.glu.html
Tensor glu(const TensorView& input, const GluOptions& options = {});

/// `value` where x <= threshold, else x. Integer inputs compare with the
/// numbers truncated towards zero, as libtorch converts them; a number out
/// of the dtype's range throws fp::Error.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.threshold.html
///
/// `aten::threshold` takes Scalars, which the stable ABI cannot carry, so this
/// selects with `where` (float16/bfloat16 compared in float32, as libtorch
/// does): bit-exact.
Tensor threshold(const TensorView& input, double threshold, double value);

struct HardtanhOptions {
  double min_val = -1.0;
  double max_val = 1.0;
};
/// min(max(x, min_val), max_val). Integer inputs clamp to the bounds
/// truncated towards zero, as libtorch does.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.hardtanh.html
///
/// `aten::hardtanh` takes Scalars, which the stable ABI cannot carry; its
/// kernel is clamp's, which this calls with the bounds as 0-dim tensors:
/// bit-exact.
Tensor hardtanh(const TensorView& input, const HardtanhOptions& options = {});

struct SoftplusOptions {
  double beta = 1.0;
  /// Above `threshold` (of beta * x) the result is x.
  double threshold = 20.0;
};
/// log(1 + exp(beta * x)) / beta, or x where beta * x > threshold.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.softplus.html
///
/// `aten::softplus` takes Scalars, which the stable ABI cannot carry, so this
/// computes `where(x * beta > threshold, x, log1p(exp(x * beta)) / beta)`
/// (float16/bfloat16 in float32, as libtorch does). libtorch's kernel
/// evaluates exp and log1p with its own vectorised functions, ATen's exp and
/// log1p ops with other ones, so float32 and float64 results differ from
/// Python's by up to 2 ulp in some elements (measured: relative difference
/// up to 1.5e-7 in float32, 3e-16 in float64; about 7% of the elements
/// differ at all). float16/bfloat16 results equalled Python's in every
/// measurement (they round the float32 value).
Tensor softplus(const TensorView& input, const SoftplusOptions& options = {});

struct CeluOptions {
  /// Must not be 0.
  double alpha = 1.0;
};
/// x if x > 0 else alpha * (exp(x / alpha) - 1).
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.celu.html
///
/// `aten::celu` takes a Scalar, which the stable ABI cannot carry, so this
/// computes `where(x > 0, x, expm1(x * (1 / alpha)) * alpha)` as elu does
/// (see there): equal to Python's except in the elements libtorch's kernel
/// computes in its scalar remainder loop, where the two differ by at most
/// 2 ulp (measured relative difference up to 1.4e-7 in float32, 2.8e-16 in
/// float64).
Tensor celu(const TensorView& input, const CeluOptions& options = {});

struct ShrinkOptions {
  double lambd = 0.5;
};
/// x - lambd if x > lambd, x + lambd if x < -lambd, else 0. lambd must not
/// be negative.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.softshrink.html
///
/// `aten::softshrink` takes a Scalar, which the stable ABI cannot carry, so
/// this composes `where` and a subtraction, rounded as the kernel of the
/// loaded torch rounds them (it changed in 2.14 for float16/bfloat16):
/// equal to Python's values. The sign of a zero result is not: libtorch's
/// kernel returns -0.0 for small negative inputs in its scalar loop and +0.0
/// in its vectorised one; this always returns +0.0.
Tensor softshrink(const TensorView& input, const ShrinkOptions& options = {});
/// x if |x| > lambd else 0. https://pytorch.org/docs/stable/generated/torch.nn.functional.hardshrink.html
///
/// `aten::hardshrink` takes a Scalar, which the stable ABI cannot carry, so
/// this selects with `where`: bit-exact.
Tensor hardshrink(const TensorView& input, const ShrinkOptions& options = {});

struct RreluOptions {
  double lower = 1.0 / 8;
  double upper = 1.0 / 3;
  /// Draw the slope of each element <= 0 uniformly from [lower, upper) (CPU;
  /// float32, float64 and bfloat16, as in libtorch). Otherwise the slope is
  /// (lower + upper) / 2, which is what fp::nn::RReLU (eval mode) does.
  bool training = false;
  /// Where training draws from: nullptr is libtorch's global generator, which
  /// Python's F.rrelu uses (and which the stable ABI cannot seed); an
  /// fp::Generator gives the numbers a torch.Generator seeded alike gives
  /// (`torch.ops.aten.rrelu_with_noise(..., generator=g)`).
  Generator* generator = nullptr;
};
/// Randomized leaky ReLU. https://pytorch.org/docs/stable/generated/torch.nn.functional.rrelu.html
///
/// `aten::rrelu` takes Scalars, which the stable ABI cannot carry. Eval mode
/// is leaky_relu with the mean slope, as libtorch computes it: bit-exact.
/// Training draws the slopes in libtorch's order (one 53-bit uniform per
/// element <= 0, row-major) and scales them as its kernel does: bit-exact.
Tensor rrelu(const TensorView& input, const RreluOptions& options = {});

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
/// softmax(-x): Python's `(-input).softmax(dim)`.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.softmin.html
Tensor softmin(const TensorView& input, std::int64_t dim, const SoftmaxOptions& options = {});

}  // namespace fp::functional
