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

struct BatchNormOptions {
  std::optional<TensorView> weight{};
  std::optional<TensorView> bias{};
  /// Normalise with the batch's statistics instead of the running ones.
  bool training = false;
  double momentum = 0.1;
  double eps = 1e-5;
};
/// Eval mode (the default) normalises with `running_mean` and `running_var`.
/// Training mode requires both to be std::nullopt (they would be updated).
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.batch_norm.html
Tensor batch_norm(const TensorView& input, const std::optional<TensorView>& running_mean,
                  const std::optional<TensorView>& running_var,
                  const BatchNormOptions& options = {});

struct InstanceNormOptions {
  std::optional<TensorView> running_mean{};
  std::optional<TensorView> running_var{};
  std::optional<TensorView> weight{};
  std::optional<TensorView> bias{};
  /// Normalise each instance with its own statistics (true) or with the
  /// running ones (false, which requires them).
  bool use_input_stats = true;
  double momentum = 0.1;
  double eps = 1e-5;
};
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.instance_norm.html
Tensor instance_norm(const TensorView& input, const InstanceNormOptions& options = {});

struct LayerNormOptions {
  std::optional<TensorView> weight{};
  std::optional<TensorView> bias{};
  double eps = 1e-5;
};
/// Normalises over the last `normalized_shape.size()` dimensions.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.layer_norm.html
Tensor layer_norm(const TensorView& input, IntList normalized_shape,
                  const LayerNormOptions& options = {});

struct GroupNormOptions {
  std::optional<TensorView> weight{};
  std::optional<TensorView> bias{};
  double eps = 1e-5;
};
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.group_norm.html
Tensor group_norm(const TensorView& input, std::int64_t num_groups,
                  const GroupNormOptions& options = {});

struct NormalizeOptions {
  double p = 2.0;
  std::int64_t dim = 1;
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
