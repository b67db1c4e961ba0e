// Normalisation: torch.nn.functional.batch_norm, layer_norm, group_norm,
// instance_norm, rms_norm, local_response_norm and normalize.
// https://pytorch.org/docs/stable/nn.functional.html#normalization-functions
//
// flash_powder runs inference, so nothing here updates running statistics:
// where Python would update them in place (training-mode batch_norm,
// instance_norm with use_input_stats), passing them throws fp::Error instead.
// Each function returns a new Tensor.
#pragma once

#include <cstdint>
#include <optional>

#include "flash_powder/core/array_ref.h"
#include "flash_powder/core/tensor.h"
#include "flash_powder/nn/options.h"

namespace fp::functional {

/// The keyword arguments of batch_norm, with PyTorch's defaults.
struct BatchNormOptions {
  /// The per-channel scale (None: 1).
  std::optional<TensorView> weight{};
  /// The per-channel shift (None: 0).
  std::optional<TensorView> bias{};
  /// Normalise with the batch's statistics instead of the running ones.
  bool training = false;
  /// How much a training step would move the running statistics.
  double momentum = 0.1;
  /// Added to the variance before its square root.
  double eps = 1e-5;
};
/// Eval mode (the default) normalises with `running_mean` and `running_var`.
/// Training mode requires both to be std::nullopt (they would be updated).
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.batch_norm.html
Tensor batch_norm(const TensorView& input, const std::optional<TensorView>& running_mean,
                  const std::optional<TensorView>& running_var,
                  const BatchNormOptions& options = {});

/// The keyword arguments of instance_norm, with PyTorch's defaults.
struct InstanceNormOptions {
  /// Running means per channel (needed when use_input_stats is false).
  std::optional<TensorView> running_mean{};
  /// Running variances per channel (needed when use_input_stats is false).
  std::optional<TensorView> running_var{};
  /// The per-channel scale (None: 1).
  std::optional<TensorView> weight{};
  /// The per-channel shift (None: 0).
  std::optional<TensorView> bias{};
  /// Normalise each instance with its own statistics (true) or with the
  /// running ones (false, which requires them).
  bool use_input_stats = true;
  /// How much the running statistics would move.
  double momentum = 0.1;
  /// Added to the variance before its square root.
  double eps = 1e-5;
};
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.instance_norm.html
Tensor instance_norm(const TensorView& input, const InstanceNormOptions& options = {});

/// The keyword arguments of layer_norm, with PyTorch's defaults.
struct LayerNormOptions {
  /// The elementwise scale, shaped like `normalized_shape` (None: 1).
  std::optional<TensorView> weight{};
  /// The elementwise shift, shaped like `normalized_shape` (None: 0).
  std::optional<TensorView> bias{};
  /// Added to the variance before its square root.
  double eps = 1e-5;
};
/// Normalises over the last `normalized_shape.size()` dimensions.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.layer_norm.html
Tensor layer_norm(const TensorView& input, IntList normalized_shape,
                  const LayerNormOptions& options = {});

/// The keyword arguments of group_norm, with PyTorch's defaults.
struct GroupNormOptions {
  /// The per-channel scale (None: 1).
  std::optional<TensorView> weight{};
  /// The per-channel shift (None: 0).
  std::optional<TensorView> bias{};
  /// Added to the variance before its square root.
  double eps = 1e-5;
};
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.group_norm.html
Tensor group_norm(const TensorView& input, std::int64_t num_groups,
                  const GroupNormOptions& options = {});

struct RmsNormOptions {
  std::optional<TensorView> weight{};
  /// std::nullopt: the input dtype's machine epsilon (torch.finfo), as Python.
  std::optional<double> eps{};
};
/// x / sqrt(mean(x^2) + eps) * weight over the last `normalized_shape.size()`
/// dimensions. https://pytorch.org/docs/stable/generated/torch.nn.functional.rms_norm.html
Tensor rms_norm(const TensorView& input, IntList normalized_shape,
                const RmsNormOptions& options = {});

struct LocalResponseNormOptions {
  double alpha = 1e-4;
  double beta = 0.75;
  double k = 1.0;
};
/// x / (k + alpha * mean of x^2 over `size` neighbouring channels)^beta, for
/// input [N, C, *] (3 or more dimensions), computed as Python composes it
/// (a zero-padded average pool of x^2 along the channels): bit-exact.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.local_response_norm.html
Tensor local_response_norm(const TensorView& input, std::int64_t size,
                           const LocalResponseNormOptions& options = {});

struct NormalizeOptions {
  /// Any real p: 2, 1, 0 (the count of non-zeros), inf, -inf, fractional or negative.
  double p = 2.0;
  /// One dimension or several (`{0, 2}`), as Python's `dim`.
  nn::Dims dim = 1;
  double eps = 1e-12;
};
/// x / max(||x||_p, eps) along `dim`.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.normalize.html
///
/// Python's norm takes `p` as a Scalar, which the stable ABI cannot carry, so
/// the norm is composed as its kernel computes it: p = 2 through
/// `aten::norm` with p=None (the same kernel), p = 0, inf and -inf as a count
/// and max/min of |x| (exact), other p > 0 as `aten::_cdist_forward` to a
/// zero vector, which sums |x|^p in the same order in the same type. So
/// every p is bit-exact for float64, float16 and bfloat16, and p = 0, 1, 2,
/// inf, -inf for float32 too; float32 with another p differs from Python's
/// by up to 2 ulp in some elements (cdist raises the sum to 1/p in double,
/// the norm kernel in float). Negative finite p (|x|^p summed by cdist with
/// p = 1) differ by up to 4 ulp (float32) and 6 ulp (float64) in some
/// elements, from pow's vectorised rounding. Where libtorch splits a single
/// norm of more than 32768 elements across threads, its sum is rounded in
/// another order (relative difference about 1e-15 in float64). Complex
/// inputs are normed by their magnitudes, as libtorch's kernel does (exact
/// where their real dtype is).
Tensor normalize(const TensorView& input, const NormalizeOptions& options = {});

}  // namespace fp::functional
