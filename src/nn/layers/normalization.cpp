#include "flash_powder/nn/layers/normalization.h"

#include <algorithm>
#include <string>
#include <vector>

#include "flash_powder/core/conversion.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/functions.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/functional/normalization.h"
#include "nn/messages.h"
#include "parameters.h"

namespace fp::nn {

namespace detail {

NormBase::NormBase(std::int64_t num_features, bool affine, bool with_bias, bool track_running_stats,
                   std::optional<DType> dtype, std::optional<Device> device)
    : num_features(num_features) {
  const TensorOptions tensor_options = layer_options(dtype, device);
  if (affine) {
    weight = ones({num_features}, tensor_options);
    if (with_bias) bias = zeros({num_features}, tensor_options);
  }
  if (track_running_stats) {
    running_mean = zeros({num_features}, tensor_options);
    running_var = ones({num_features}, tensor_options);
    num_batches_tracked =
        zeros({}, TensorOptions(DType::I64, tensor_options.device_or(Device::cpu())));
  }
}

void NormBase::visit(Visitor& visitor) {
  visitor.parameter("weight", weight);
  visitor.parameter("bias", bias);
  visitor.buffer("running_mean", running_mean);
  visitor.buffer("running_var", running_var);
  visitor.buffer("num_batches_tracked", num_batches_tracked, {.may_be_missing = true});
}

Tensor BatchNorm::forward(TensorView input) const {
  check_input_dim(input);
  // Eval mode: the running statistics when tracked, else the batch's own.
  const bool batch_statistics = !running_mean.is_defined() && !running_var.is_defined();
  return functional::batch_norm(input, optional_view(running_mean), optional_view(running_var),
                                {.weight = optional_view(weight),
                                 .bias = optional_view(bias),
                                 .training = batch_statistics,
                                 .momentum = options.momentum.value_or(0.0),
                                 .eps = options.eps});
}

Tensor InstanceNorm::forward(TensorView input) const {
  const std::int64_t rank = unbatched_rank();
  const std::string layer = "InstanceNorm" + std::to_string(rank - 1) + "d";
  if (input.dim() != rank && input.dim() != rank + 1) {
    fail(layer, "expected " + std::to_string(rank) + "D or " + std::to_string(rank + 1) +
                    "D input (got " + std::to_string(input.dim()) + "D input)");
  }
  const std::int64_t feature_dim = input.dim() - rank;
  if (options.affine && input.size(feature_dim) != num_features) {
    fail(layer, "expected input's size at dim=" + std::to_string(feature_dim) +
                    " to match num_features (" + std::to_string(num_features) +
                    "), but got: " + std::to_string(input.size(feature_dim)) + ".");
  }
  if (input.dim() == rank) {
    // Unbatched: PyTorch's unsqueeze(0), normalise, squeeze(0).
    const Tensor result = normalize(input.unsqueeze(0));
    return result.reshape(input.sizes());
  }
  return normalize(input);
}

Tensor InstanceNorm::normalize(TensorView batched) const {
  // Eval mode: each instance's own statistics unless running ones are tracked.
  return functional::instance_norm(batched, {.running_mean = optional_view(running_mean),
                                             .running_var = optional_view(running_var),
                                             .weight = optional_view(weight),
                                             .bias = optional_view(bias),
                                             .use_input_stats = !options.track_running_stats,
                                             .momentum = options.momentum.value_or(0.0),
                                             .eps = options.eps});
}

}  // namespace detail

void BatchNorm1d::check_input_dim(TensorView input) const {
  if (input.dim() != 2 && input.dim() != 3) {
    detail::fail("BatchNorm1d",
                 "expected 2D or 3D input (got " + std::to_string(input.dim()) + "D input)");
  }
}

void BatchNorm2d::check_input_dim(TensorView input) const {
  if (input.dim() != 4) {
    detail::fail("BatchNorm2d",
                 "expected 4D input (got " + std::to_string(input.dim()) + "D input)");
  }
}

void BatchNorm3d::check_input_dim(TensorView input) const {
  if (input.dim() != 5) {
    detail::fail("BatchNorm3d",
                 "expected 5D input (got " + std::to_string(input.dim()) + "D input)");
  }
}

LayerNorm::LayerNorm(IntList normalized_shape, const LayerNormOptions& options)
    : normalized_shape(normalized_shape.vec()), options(options) {
  const TensorOptions tensor_options = detail::layer_options(options.dtype, options.device);
  if (options.elementwise_affine) {
    weight = ones(normalized_shape, tensor_options);
    if (options.bias) bias = zeros(normalized_shape, tensor_options);
  }
}

void LayerNorm::visit(Visitor& visitor) {
  visitor.parameter("weight", weight);
  visitor.parameter("bias", bias);
}

Tensor LayerNorm::forward(TensorView input) const {
  return functional::layer_norm(input, normalized_shape,
                                {.weight = detail::optional_view(weight),
                                 .bias = detail::optional_view(bias),
                                 .eps = options.eps});
}

GroupNorm::GroupNorm(std::int64_t num_groups, std::int64_t num_channels,
                     const GroupNormOptions& options)
    : num_groups(num_groups), num_channels(num_channels), options(options) {
  if (num_groups <= 0 || num_channels % num_groups != 0) {
    detail::fail("GroupNorm", "num_channels must be divisible by num_groups");
  }
  const TensorOptions tensor_options = detail::layer_options(options.dtype, options.device);
  if (options.affine) {
    weight = ones({num_channels}, tensor_options);
    bias = zeros({num_channels}, tensor_options);
  }
}

void GroupNorm::visit(Visitor& visitor) {
  visitor.parameter("weight", weight);
  visitor.parameter("bias", bias);
}

Tensor GroupNorm::forward(TensorView input) const {
  return functional::group_norm(input, num_groups,
                                {.weight = detail::optional_view(weight),
                                 .bias = detail::optional_view(bias),
                                 .eps = options.eps});
}

RMSNorm::RMSNorm(IntList normalized_shape, const RMSNormOptions& options)
    : normalized_shape(normalized_shape.vec()), options(options) {
  if (options.elementwise_affine) {
    weight = ones(normalized_shape, detail::layer_options(options.dtype, options.device));
  }
}

void RMSNorm::visit(Visitor& visitor) {
  visitor.parameter("weight", weight);
}

Tensor RMSNorm::forward(TensorView input) const {
  return functional::rms_norm(input, normalized_shape,
                              {.weight = detail::optional_view(weight), .eps = options.eps});
}

LocalResponseNorm::LocalResponseNorm(std::int64_t size, const LocalResponseNormOptions& options)
    : size(size), options(options) {}

Tensor LocalResponseNorm::forward(TensorView input) const {
  return functional::local_response_norm(
      input, size, {.alpha = options.alpha, .beta = options.beta, .k = options.k});
}

CrossMapLRN2d::CrossMapLRN2d(std::int64_t size, const LocalResponseNormOptions& options)
    : size(size), options(options) {
  if (size <= 0)
    detail::fail("CrossMapLRN2d", "size must be positive, got " + std::to_string(size));
}

Tensor CrossMapLRN2d::forward(TensorView input) const {
  if (input.dim() != 4) {
    detail::fail("CrossMapLRN2d",
                 "Expected input to be 4D, got " + std::to_string(input.dim()) + "D instead.");
  }
  // PyTorch's torch.nn._functions.CrossMapLRN2d, step by step (the same ops,
  // so the same roundings): a running sum of squares over a window of
  // channels, where channel 0's square is never taken out again.
  const std::int64_t channels = input.size(1);
  if (channels == 0) return Tensor(input);
  const Tensor squares = input.pow(2);
  const std::int64_t pre_pad = (size - 1) / 2 + 1;
  std::vector<Tensor> scale;
  Tensor running = fp::zeros_like(squares.select(1, 0));
  for (std::int64_t c = 0; c < std::min(pre_pad, channels); ++c)
    running = running + squares.select(1, c);
  scale.push_back(running);
  for (std::int64_t c = 1; c < channels; ++c) {
    if (c < channels - pre_pad + 1) running = running + squares.select(1, c + pre_pad - 1);
    if (c > pre_pad) running = running - squares.select(1, c - pre_pad);
    scale.push_back(running);
  }
  const Tensor scaled = stack(scale, 1) * fp::tensor(options.alpha / static_cast<double>(size)) +
                        fp::tensor(options.k);
  return scaled.pow(Scalar(-options.beta)) * input;
}

}  // namespace fp::nn
