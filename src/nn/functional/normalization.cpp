#include "flash_powder/nn/functional/normalization.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "../aten_op.h"
#include "../tensor_ops.h"

namespace fp::functional {
namespace {

using nn::detail::AtenOp;

// torch.backends.cudnn.enabled, which Python passes to these ops.
constexpr bool kCudnnEnabled = true;

/// Python's `_verify_batch_size`: statistics of single values are undefined.
void verify_batch_size(const std::vector<std::int64_t>& sizes, const std::string& sizes_text,
                       const char* function) {
  std::int64_t values = sizes.at(0);
  for (std::size_t i = 2; i < sizes.size(); ++i)
    values *= sizes[i];
  if (values == 1) {
    throw Error(std::string("fp::functional::") + function +
                ": Expected more than 1 value per channel when training, got input size " +
                sizes_text);
  }
}

/// Python's `_verify_spatial_size`.
void verify_spatial_size(TensorView input) {
  std::int64_t values = 1;
  for (std::int64_t i = 2; i < input.dim(); ++i)
    values *= input.size(i);
  if (values == 1) {
    throw Error(
        "fp::functional::instance_norm: Expected more than 1 spatial element when training, got "
        "input size " +
        nn::detail::torch_size(input));
  }
}

[[noreturn]] void throw_running_stats_update(const char* function, const char* mode) {
  throw Error(std::string("fp::functional::") + function + ": with " + mode +
              " Python updates running_mean and running_var in place; flash_powder runs "
              "inference and does not, so pass std::nullopt for them");
}

/// ||x||_p along `dim`, keeping it.
Tensor vector_norm(TensorView input, double p, std::int64_t dim) {
  static const AtenOp euclidean("aten::norm", "ScalarOpt_dim");
  static const AtenOp absolute("aten::abs", "");
  static const AtenOp amax("aten::amax", ""), amin("aten::amin", "");
  static const AtenOp sum("aten::sum", "dim_IntList");
  static const AtenOp not_equal("aten::ne", "Tensor");
  static const AtenOp power("aten::pow", "Tensor_Tensor");
  const std::vector<std::int64_t> dims{dim};
  // p = None is Python's p = 2, and the same kernel as linalg.vector_norm(ord=2).
  if (p == 2.0) return euclidean(input, std::nullopt, dims, true);
  if (p == 0.0) {
    const Tensor nonzero = not_equal(input, nn::detail::scalar_tensor(0.0, DType::F64));
    return sum(nonzero, dims, true, input.dtype());
  }
  const Tensor magnitude = absolute(input);
  if (std::isinf(p)) return p > 0 ? amax(magnitude, dims, true) : amin(magnitude, dims, true);
  if (p == 1.0) return sum(magnitude, dims, true);
  const Tensor powered = power(magnitude, nn::detail::scalar_tensor(p, DType::F64));
  const Tensor total = sum(powered, dims, true);
  return power(total, nn::detail::scalar_tensor(1.0 / p, DType::F64));
}

}  // namespace

Tensor batch_norm(TensorView input, std::optional<TensorView> running_mean,
                  std::optional<TensorView> running_var, const BatchNormOptions& options) {
  static const AtenOp op("aten::batch_norm", "");
  if (options.training) {
    if (running_mean || running_var) throw_running_stats_update("batch_norm", "training = true");
    verify_batch_size(nn::detail::sizes_of(input), nn::detail::torch_size(input), "batch_norm");
  }
  return op(input, options.weight, options.bias, running_mean, running_var, options.training,
            options.momentum, options.eps, kCudnnEnabled);
}

Tensor instance_norm(TensorView input, const InstanceNormOptions& options) {
  static const AtenOp op("aten::instance_norm", "");
  if (options.use_input_stats) {
    if (options.running_mean || options.running_var) {
      throw_running_stats_update("instance_norm", "use_input_stats = true");
    }
    verify_spatial_size(input);
  }
  return op(input, options.weight, options.bias, options.running_mean, options.running_var,
            options.use_input_stats, options.momentum, options.eps, kCudnnEnabled);
}

Tensor layer_norm(TensorView input, IntList normalized_shape, const LayerNormOptions& options) {
  static const AtenOp op("aten::layer_norm", "");
  return op(input, normalized_shape.vec(), options.weight, options.bias, options.eps,
            kCudnnEnabled);
}

Tensor group_norm(TensorView input, std::int64_t num_groups, const GroupNormOptions& options) {
  static const AtenOp op("aten::group_norm", "");
  if (input.dim() < 2) {
    throw Error(
        "fp::functional::group_norm: Expected at least 2 dimensions for input tensor but "
        "received " +
        std::to_string(input.dim()));
  }
  if (num_groups <= 0) {
    throw Error("fp::functional::group_norm: num_groups must be positive, got " +
                std::to_string(num_groups));
  }
  std::vector<std::int64_t> grouped{input.size(0) * input.size(1) / num_groups, num_groups};
  for (std::int64_t i = 2; i < input.dim(); ++i)
    grouped.push_back(input.size(i));
  verify_batch_size(grouped, nn::detail::list_text(grouped), "group_norm");
  return op(input, num_groups, options.weight, options.bias, options.eps, kCudnnEnabled);
}

Tensor normalize(TensorView input, const NormalizeOptions& options) {
  static const AtenOp clamp_min("aten::clamp_min", "Tensor");
  const Tensor norm = vector_norm(input, options.p, options.dim);
  const Tensor denominator = clamp_min(norm, nn::detail::scalar_tensor(options.eps, DType::F64));
  return nn::detail::div(input, denominator);
}

}  // namespace fp::functional
