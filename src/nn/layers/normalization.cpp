#include "flash_powder/nn/layers/normalization.h"

#include <string>

#include "flash_powder/core/conversion.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/functional/normalization.h"
#include "nn/messages.h"
#include "parameters.h"

namespace fp::nn {

namespace detail {

BatchNorm::BatchNorm(std::int64_t num_features, const BatchNormOptions& options)
    : num_features(num_features), options(options) {
  const TensorOptions tensor_options = layer_options(options.dtype, options.device);
  if (options.affine) {
    weight = ones({num_features}, tensor_options);
    bias = zeros({num_features}, tensor_options);
  }
  if (options.track_running_stats) {
    running_mean = zeros({num_features}, tensor_options);
    running_var = ones({num_features}, tensor_options);
    num_batches_tracked =
        zeros({}, TensorOptions(DType::I64, tensor_options.device_or(Device::cpu())));
  }
}

void BatchNorm::visit(Visitor& visitor) {
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

}  // namespace fp::nn
