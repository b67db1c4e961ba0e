// Normalisation layers: torch.nn.BatchNorm1d/2d/3d, InstanceNorm1d/2d/3d,
// LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm, CrossMapLRN2d.
// https://pytorch.org/docs/stable/nn.html#normalization-layers
//
// Each runs in eval mode. BatchNorm normalises with its running statistics
// (or, made with `.track_running_stats = false`, with the batch's own);
// InstanceNorm with each instance's own statistics (or, made with
// `.track_running_stats = true`, with the running ones), as PyTorch does.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "flash_powder/base/device.h"
#include "flash_powder/base/dtype.h"
#include "flash_powder/core/array_ref.h"
#include "flash_powder/nn/module.h"

namespace fp::nn {

/// The keyword arguments of BatchNorm1d/2d/3d, with PyTorch's defaults.
struct BatchNormOptions {
  /// Added to the variance before its square root.
  double eps = 1e-5;
  /// Only used in training, which flash_powder does not do; kept for fidelity.
  std::optional<double> momentum = 0.1;
  /// Learnable `weight` (ones) and `bias` (zeros).
  bool affine = true;
  /// Buffers `running_mean` (zeros), `running_var` (ones) and
  /// `num_batches_tracked` (int64 0).
  bool track_running_stats = true;
  /// Where the tensors live (the CPU, or the DefaultDevice, when absent).
  std::optional<Device> device{};
  /// The floating tensors' dtype (float32 when absent).
  std::optional<DType> dtype{};
  /// With `affine`, whether there is a `bias` (PyTorch 2.12's keyword).
  bool bias = true;
};

namespace detail {
/// The parameters and buffers BatchNorm and InstanceNorm share (PyTorch's
/// _NormBase): `weight` and `bias` when affine, the running statistics when
/// tracked, with PyTorch's names and initial values.
class NormBase : public Module {
 public:
  /// The tensors of a norm over `num_features` channels, for the options'
  /// `affine`, `bias`, `track_running_stats`, `dtype` and `device`.
  template <class Options>
  NormBase(std::int64_t num_features, const Options& options)
      : NormBase(num_features, options.affine, options.bias, options.track_running_stats,
                 options.dtype, options.device) {}

  void visit(Visitor& visitor) override;

  /// The number of channels.
  std::int64_t num_features;
  /// [num_features] scale (undefined unless affine).
  Tensor weight;
  /// [num_features] shift (undefined unless affine and bias).
  Tensor bias;
  /// [num_features] running means (undefined unless track_running_stats).
  Tensor running_mean;
  /// [num_features] running variances (undefined unless track_running_stats).
  Tensor running_var;
  /// The number of training batches seen (int64 0-dim; undefined unless track_running_stats).
  Tensor num_batches_tracked;

 private:
  NormBase(std::int64_t num_features, bool affine, bool with_bias, bool track_running_stats,
           std::optional<DType> dtype, std::optional<Device> device);
};

/// What BatchNorm1d/2d/3d share; use those.
class BatchNorm : public NormBase {
 public:
  /// A batch norm over `num_features` channels.
  BatchNorm(std::int64_t num_features, const BatchNormOptions& options)
      : NormBase(num_features, options), options(options) {}

  Tensor forward(TensorView input) const override;

  /// The keyword arguments it was made with.
  BatchNormOptions options;

 protected:
  /// Throws fp::Error for an input of the wrong rank.
  virtual void check_input_dim(TensorView input) const = 0;
};
}  // namespace detail

/// Input [N, C] or [N, C, L].
/// https://pytorch.org/docs/stable/generated/torch.nn.BatchNorm1d.html
class BatchNorm1d : public detail::BatchNorm {
 public:
  /// A batch norm over `num_features` channels.
  explicit BatchNorm1d(std::int64_t num_features, const BatchNormOptions& options = {})
      : BatchNorm(num_features, options) {}

 protected:
  void check_input_dim(TensorView input) const override;
};

/// Input [N, C, H, W].
/// https://pytorch.org/docs/stable/generated/torch.nn.BatchNorm2d.html
class BatchNorm2d : public detail::BatchNorm {
 public:
  /// A batch norm over `num_features` channels.
  explicit BatchNorm2d(std::int64_t num_features, const BatchNormOptions& options = {})
      : BatchNorm(num_features, options) {}

 protected:
  void check_input_dim(TensorView input) const override;
};

/// Input [N, C, D, H, W].
/// https://pytorch.org/docs/stable/generated/torch.nn.BatchNorm3d.html
class BatchNorm3d : public detail::BatchNorm {
 public:
  /// A batch norm over `num_features` channels.
  explicit BatchNorm3d(std::int64_t num_features, const BatchNormOptions& options = {})
      : BatchNorm(num_features, options) {}

 protected:
  void check_input_dim(TensorView input) const override;
};

/// The keyword arguments of InstanceNorm1d/2d/3d. PyTorch's defaults for
/// instance norm differ from batch norm's: no affine parameters and no
/// running statistics.
struct InstanceNormOptions {
  /// Added to the variance before its square root.
  double eps = 1e-5;
  /// Only used in training, which flash_powder does not do; kept for fidelity.
  std::optional<double> momentum = 0.1;
  /// Learnable `weight` (ones) and `bias` (zeros).
  bool affine = false;
  /// Buffers `running_mean` (zeros), `running_var` (ones) and
  /// `num_batches_tracked` (int64 0), which eval mode normalises with.
  bool track_running_stats = false;
  /// Where the tensors live (the CPU, or the DefaultDevice, when absent).
  std::optional<Device> device{};
  /// The floating tensors' dtype (float32 when absent).
  std::optional<DType> dtype{};
  /// With `affine`, whether there is a `bias` (PyTorch 2.12's keyword).
  bool bias = true;
};

namespace detail {
/// What InstanceNorm1d/2d/3d share; use those.
class InstanceNorm : public NormBase {
 public:
  /// An instance norm over `num_features` channels.
  InstanceNorm(std::int64_t num_features, const InstanceNormOptions& options)
      : NormBase(num_features, options), options(options) {}

  /// Batched or not (one dimension fewer). An input whose channel count is
  /// not num_features throws where there are affine parameters; otherwise
  /// PyTorch warns and normalises anyway, and so does this (without warning).
  Tensor forward(TensorView input) const override;

  /// The keyword arguments it was made with.
  InstanceNormOptions options;

 protected:
  /// The rank of an unbatched input: 2, 3 or 4.
  virtual std::int64_t unbatched_rank() const = 0;

 private:
  Tensor normalize(TensorView batched) const;
};
}  // namespace detail

/// Input [N, C, L] or unbatched [C, L].
/// https://pytorch.org/docs/stable/generated/torch.nn.InstanceNorm1d.html
class InstanceNorm1d : public detail::InstanceNorm {
 public:
  /// An instance norm over `num_features` channels.
  explicit InstanceNorm1d(std::int64_t num_features, const InstanceNormOptions& options = {})
      : InstanceNorm(num_features, options) {}

 protected:
  std::int64_t unbatched_rank() const override { return 2; }
};

/// Input [N, C, H, W] or unbatched [C, H, W].
/// https://pytorch.org/docs/stable/generated/torch.nn.InstanceNorm2d.html
class InstanceNorm2d : public detail::InstanceNorm {
 public:
  /// An instance norm over `num_features` channels.
  explicit InstanceNorm2d(std::int64_t num_features, const InstanceNormOptions& options = {})
      : InstanceNorm(num_features, options) {}

 protected:
  std::int64_t unbatched_rank() const override { return 3; }
};

/// Input [N, C, D, H, W] or unbatched [C, D, H, W].
/// https://pytorch.org/docs/stable/generated/torch.nn.InstanceNorm3d.html
class InstanceNorm3d : public detail::InstanceNorm {
 public:
  /// An instance norm over `num_features` channels.
  explicit InstanceNorm3d(std::int64_t num_features, const InstanceNormOptions& options = {})
      : InstanceNorm(num_features, options) {}

 protected:
  std::int64_t unbatched_rank() const override { return 4; }
};

/// The keyword arguments of LayerNorm, with PyTorch's defaults.
struct LayerNormOptions {
  /// Added to the variance before its square root.
  double eps = 1e-5;
  /// Learnable `weight` (ones) and, if `bias`, `bias` (zeros).
  bool elementwise_affine = true;
  /// Whether there is a `bias` (with elementwise_affine).
  bool bias = true;
  /// Where the parameters live (the CPU, or the DefaultDevice, when absent).
  std::optional<Device> device{};
  /// The parameters' dtype (float32 when absent).
  std::optional<DType> dtype{};
};

/// Normalises over the last `normalized_shape.size()` dimensions:
/// `LayerNorm(768)` or `LayerNorm({3, 4})` (one dimension in braces, `{768}`,
/// is ambiguous with the copy constructor in C++).
/// https://pytorch.org/docs/stable/generated/torch.nn.LayerNorm.html
class LayerNorm : public Module {
 public:
  /// A layer norm over the last dimensions, sized `normalized_shape`.
  explicit LayerNorm(IntList normalized_shape, const LayerNormOptions& options = {});

  void visit(Visitor& visitor) override;
  Tensor forward(TensorView input) const override;

  /// The sizes of the normalised dimensions.
  std::vector<std::int64_t> normalized_shape;
  /// The keyword arguments it was made with.
  LayerNormOptions options;
  /// The elementwise scale (undefined unless elementwise_affine).
  Tensor weight;
  /// The elementwise shift (undefined unless elementwise_affine and bias).
  Tensor bias;
};

/// The keyword arguments of GroupNorm, with PyTorch's defaults.
struct GroupNormOptions {
  /// Added to the variance before its square root.
  double eps = 1e-5;
  /// Learnable per-channel `weight` (ones) and `bias` (zeros).
  bool affine = true;
  /// Where the parameters live (the CPU, or the DefaultDevice, when absent).
  std::optional<Device> device{};
  /// The parameters' dtype (float32 when absent).
  std::optional<DType> dtype{};
};

/// https://pytorch.org/docs/stable/generated/torch.nn.GroupNorm.html
class GroupNorm : public Module {
 public:
  /// Throws fp::Error unless num_groups divides num_channels.
  GroupNorm(std::int64_t num_groups, std::int64_t num_channels,
            const GroupNormOptions& options = {});

  void visit(Visitor& visitor) override;
  Tensor forward(TensorView input) const override;

  /// The number of groups the channels are split into.
  std::int64_t num_groups;
  /// The number of channels.
  std::int64_t num_channels;
  /// The keyword arguments it was made with.
  GroupNormOptions options;
  /// [num_channels] scale (undefined unless affine).
  Tensor weight;
  /// [num_channels] shift (undefined unless affine).
  Tensor bias;
};

/// The keyword arguments of RMSNorm, with PyTorch's defaults.
struct RMSNormOptions {
  /// std::nullopt: the input dtype's machine epsilon, as PyTorch.
  std::optional<double> eps{};
  /// Learnable `weight` (ones) of shape `normalized_shape`.
  bool elementwise_affine = true;
  /// Where the parameters live (the CPU, or the DefaultDevice, when absent).
  std::optional<Device> device{};
  /// The parameters' dtype (float32 when absent).
  std::optional<DType> dtype{};
};

/// Root mean square normalisation over the last `normalized_shape.size()`
/// dimensions: `RMSNorm(768)` or `RMSNorm({3, 4})` (as LayerNorm).
/// https://pytorch.org/docs/stable/generated/torch.nn.RMSNorm.html
class RMSNorm : public Module {
 public:
  /// An RMS norm over the last dimensions, sized `normalized_shape`.
  explicit RMSNorm(IntList normalized_shape, const RMSNormOptions& options = {});

  void visit(Visitor& visitor) override;
  Tensor forward(TensorView input) const override;

  /// The sizes of the normalised dimensions.
  std::vector<std::int64_t> normalized_shape;
  /// The keyword arguments it was made with.
  RMSNormOptions options;
  /// The elementwise scale (undefined unless elementwise_affine).
  Tensor weight;
};

/// The keyword arguments of LocalResponseNorm and CrossMapLRN2d, with PyTorch's defaults.
struct LocalResponseNormOptions {
  /// The factor of the mean square over the window.
  double alpha = 1e-4;
  /// The exponent of the denominator.
  double beta = 0.75;
  /// The additive constant of the denominator.
  double k = 1.0;
};

/// fp::functional::local_response_norm over `size` neighbouring channels.
/// https://pytorch.org/docs/stable/generated/torch.nn.LocalResponseNorm.html
class LocalResponseNorm : public Module {
 public:
  /// A local response norm over `size` neighbouring channels.
  explicit LocalResponseNorm(std::int64_t size, const LocalResponseNormOptions& options = {});
  Tensor forward(TensorView input) const override;

  /// The number of neighbouring channels.
  std::int64_t size;
  /// The keyword arguments it was made with.
  LocalResponseNormOptions options;
};

/// Lua Torch's cross-map local response normalisation of [N, C, H, W] input:
/// x * (k + alpha / size * (sum of x^2 over a window of channels))^-beta,
/// with the running sum PyTorch's `torch.nn._functions.CrossMapLRN2d`
/// computes (its window is not LocalResponseNorm's), and its bits.
/// https://pytorch.org/docs/stable/generated/torch.nn.CrossMapLRN2d.html
class CrossMapLRN2d : public Module {
 public:
  /// Throws fp::Error unless `size` (the channel window) is positive.
  explicit CrossMapLRN2d(std::int64_t size, const LocalResponseNormOptions& options = {});
  Tensor forward(TensorView input) const override;

  /// The number of channels in the window.
  std::int64_t size;
  /// The keyword arguments it was made with.
  LocalResponseNormOptions options;
};

}  // namespace fp::nn
