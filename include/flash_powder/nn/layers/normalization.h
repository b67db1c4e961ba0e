// Normalisation layers: torch.nn.BatchNorm1d/2d, LayerNorm, GroupNorm.
// https://pytorch.org/docs/stable/nn.html#normalization-layers
//
// BatchNorm runs in eval mode: it normalises with its running statistics
// (or, made with `.track_running_stats = false`, with the batch's own).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "flash_powder/base/device.h"
#include "flash_powder/base/dtype.h"
#include "flash_powder/core/array_ref.h"
#include "flash_powder/nn/module.h"

namespace fp::nn {

struct BatchNormOptions {
  double eps = 1e-5;
  /// Only used in training, which flash_powder does not do; kept for fidelity.
  std::optional<double> momentum = 0.1;
  /// Learnable `weight` (ones) and `bias` (zeros).
  bool affine = true;
  /// Buffers `running_mean` (zeros), `running_var` (ones) and
  /// `num_batches_tracked` (int64 0).
  bool track_running_stats = true;
  std::optional<Device> device{};
  std::optional<DType> dtype{};
};

namespace detail {
/// What BatchNorm1d/2d share; use those.
class BatchNorm : public Module {
 public:
  BatchNorm(std::int64_t num_features, const BatchNormOptions& options);

  void visit(Visitor& visitor) override;
  Tensor forward(TensorView input) const override;

  std::int64_t num_features;
  BatchNormOptions options;
  Tensor weight;
  Tensor bias;
  Tensor running_mean;
  Tensor running_var;
  Tensor num_batches_tracked;

 protected:
  /// Throws fp::Error for an input of the wrong rank.
  virtual void check_input_dim(TensorView input) const = 0;
};
}  // namespace detail

/// Input [N, C] or [N, C, L].
/// https://pytorch.org/docs/stable/generated/torch.nn.BatchNorm1d.html
class BatchNorm1d : public detail::BatchNorm {
 public:
  explicit BatchNorm1d(std::int64_t num_features, const BatchNormOptions& options = {})
      : BatchNorm(num_features, options) {}

 protected:
  void check_input_dim(TensorView input) const override;
};

/// Input [N, C, H, W].
/// https://pytorch.org/docs/stable/generated/torch.nn.BatchNorm2d.html
class BatchNorm2d : public detail::BatchNorm {
 public:
  explicit BatchNorm2d(std::int64_t num_features, const BatchNormOptions& options = {})
      : BatchNorm(num_features, options) {}

 protected:
  void check_input_dim(TensorView input) const override;
};

struct LayerNormOptions {
  double eps = 1e-5;
  /// Learnable `weight` (ones) and, if `bias`, `bias` (zeros).
  bool elementwise_affine = true;
  bool bias = true;
  std::optional<Device> device{};
  std::optional<DType> dtype{};
};

/// Normalises over the last `normalized_shape.size()` dimensions:
/// `LayerNorm(768)` or `LayerNorm({3, 4})` (one dimension in braces, `{768}`,
/// is ambiguous with the copy constructor in C++).
/// https://pytorch.org/docs/stable/generated/torch.nn.LayerNorm.html
class LayerNorm : public Module {
 public:
  explicit LayerNorm(IntList normalized_shape, const LayerNormOptions& options = {});

  void visit(Visitor& visitor) override;
  Tensor forward(TensorView input) const override;

  std::vector<std::int64_t> normalized_shape;
  LayerNormOptions options;
  Tensor weight;
  Tensor bias;
};

struct GroupNormOptions {
  double eps = 1e-5;
  /// Learnable per-channel `weight` (ones) and `bias` (zeros).
  bool affine = true;
  std::optional<Device> device{};
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

  std::int64_t num_groups;
  std::int64_t num_channels;
  GroupNormOptions options;
  Tensor weight;
  Tensor bias;
};

}  // namespace fp::nn
