// Normalisation: torch.nn.functional.batch_norm, layer_norm, group_norm,
// instance_norm and normalize.
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

/// The keyword arguments of normalize, with PyTorch's defaults.
struct NormalizeOptions {
  /// The exponent of the norm.
  double p = 2.0;
  /// The dimension to normalise along.
  std::int64_t dim = 1;
  /// The smallest norm divided by.
  double eps = 1e-12;
};
/// x / max(||x||_p, eps) along `dim`.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.normalize.html
///
/// Python's norm takes `p` as a Scalar, which the stable ABI cannot carry.
/// p = 2 (the default), inf, -inf and 0 are bit-exact with Python (the
/// Euclidean norm through `aten::norm` with p=None, the others as max/min of
/// |x| and a count); other p are computed as sum(|x|^p)^(1/p), which sums in
/// another order than libtorch's norm kernel: equal to about 1e-6 relative
/// (measured up to 1.4e-6 over 1000 elements), often exactly.
Tensor normalize(const TensorView& input, const NormalizeOptions& options = {});

}  // namespace fp::functional
