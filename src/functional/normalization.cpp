#include "flash_powder/functional/normalization.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "flash_powder/aten/aten.h"
#include "flash_powder/core/conversion.h"
#include "flash_powder/core/operators.h"
#include "nn/messages.h"
#include "python_number.h"

namespace fp::functional {

using detail::python_number;

namespace {

// torch.backends.cudnn.enabled, which Python passes to these ops.
constexpr bool kCudnnEnabled = true;

/// Python's `_verify_batch_size`: statistics of single values are undefined.
void verify_batch_size(const std::vector<std::int64_t>& sizes, const std::string& sizes_text,
                       const char* function) {
  std::int64_t values = sizes.at(0);
  for (std::size_t i = 2; i < sizes.size(); ++i)
    values *= sizes[i];
  if (values == 1) {
    throw Error(ErrorCode::BadArgument,
                std::string("fp::functional::") + function +
                    ": Expected more than 1 value per channel when training, got input size " +
                    sizes_text);
  }
}

/// Python's `_verify_spatial_size`.
void verify_spatial_size(const TensorView& input) {
  std::int64_t values = 1;
  for (std::int64_t i = 2; i < input.dim(); ++i)
    values *= input.size(i);
  if (values == 1) {
    throw Error(
        ErrorCode::BadArgument,
        "fp::functional::instance_norm: Expected more than 1 spatial element when training, got "
        "input size " +
            nn::detail::torch_size(input.sizes()));
  }
}

[[noreturn]] void throw_running_stats_update(const char* function, const char* mode) {
  throw Error(ErrorCode::BadArgument,
              std::string("fp::functional::") + function + ": with " + mode +
                  " Python updates running_mean and running_var in place; flash_powder runs "
                  "inference and does not, so pass std::nullopt for them");
}

/// ||x||_p along `dim`, keeping it.
Tensor vector_norm(const TensorView& input, double p, std::int64_t dim) {
  // p = None is Python's p = 2, and the same kernel as linalg.vector_norm(ord=2).
  if (p == 2.0) return aten::norm_ScalarOpt_dim(input, dim, true);
  if (p == 0.0) return input.ne(python_number(0.0)).sum(dim, true, input.dtype());
  const Tensor magnitude = input.abs();
  if (std::isinf(p)) return p > 0 ? magnitude.amax(dim, true) : magnitude.amin(dim, true);
  if (p == 1.0) return magnitude.sum(dim, true);
  return magnitude.pow(python_number(p)).sum(dim, true).pow(python_number(1.0 / p));
}

/// aten::batch_norm and aten::instance_norm take the running statistics as
/// tensors they write (fp::MutableTensor), for training mode, which updates
/// them. flash_powder refuses that (throw_running_stats_update), so here the
/// ops only read them; each is lent as a lazy copy (copy-on-write: no data is
/// copied), which also keeps the caller's read-only view unchanged whatever
/// the op does.
std::optional<Tensor> lent_statistics(const std::optional<TensorView>& statistics) {
  if (!statistics) return std::nullopt;
  return Tensor(*statistics);
}

std::optional<MutableTensor> writable(std::optional<Tensor>& tensor) {
  if (!tensor) return std::nullopt;
  return MutableTensor(*tensor);
}

/// A CPU vector of one value per channel, of the statistics' dtype.
bool per_channel(const std::optional<TensorView>& tensor, std::int64_t channels, DType dtype) {
  return !tensor || (tensor->device().is_cpu() && tensor->dim() == 1 &&
                     tensor->size(0) == channels && tensor->dtype() == dtype);
}

/// Whether an inference batch_norm can run as
/// `_native_batch_norm_legit_no_training`, which takes the running statistics
/// as plain tensors it only reads: the CPU kernel aten::batch_norm reaches
/// (batch_norm_cpu, same arguments, so the same bits), without lending the
/// statistics as two lazy copies and without two composite hops: 2.5 instead
/// of 3.1 us per call on 64 channels of one pixel. Only CPU tensors of the shapes and
/// dtypes that kernel takes (statistics of the input's dtype, or float32 for
/// a half-precision input); anything else, an empty input included (which
/// aten::batch_norm answers without the kernel), goes through
/// aten::batch_norm, which reports bad input in its own words. On CUDA
/// aten::batch_norm may pick cuDNN, whose rounding differs.
bool inference_kernel_applies(const TensorView& input,
                              const std::optional<TensorView>& running_mean,
                              const std::optional<TensorView>& running_var,
                              const BatchNormOptions& options) {
  if (options.training || !running_mean || !running_var) return false;
  if (!input.device().is_cpu() || input.dim() < 2 || input.numel() == 0) return false;
  const DType dtype = input.dtype();
  const DType statistics = running_mean->dtype();
  const bool half_input = dtype == DType::F16 || dtype == DType::BF16;
  const bool supported = dtype == DType::F32 || dtype == DType::F64 || half_input;
  if (!supported || (statistics != dtype && !(half_input && statistics == DType::F32))) {
    return false;
  }
  const std::int64_t channels = input.size(1);
  return per_channel(running_mean, channels, statistics) &&
         per_channel(running_var, channels, statistics) &&
         per_channel(options.weight, channels, statistics) &&
         per_channel(options.bias, channels, statistics);
}

}  // namespace

Tensor batch_norm(const TensorView& input, const std::optional<TensorView>& running_mean,
                  const std::optional<TensorView>& running_var, const BatchNormOptions& options) {
  if (options.training) {
    if (running_mean || running_var) throw_running_stats_update("batch_norm", "training = true");
    const auto sizes = input.sizes();
    verify_batch_size({sizes.begin(), sizes.end()}, nn::detail::torch_size(sizes), "batch_norm");
  }
  if (inference_kernel_applies(input, running_mean, running_var, options)) {
    return std::get<0>(aten::_native_batch_norm_legit_no_training(
        input, options.weight, options.bias, *running_mean, *running_var, options.momentum,
        options.eps));
  }
  std::optional<Tensor> mean = lent_statistics(running_mean), var = lent_statistics(running_var);
  return aten::batch_norm(input, options.weight, options.bias, writable(mean), writable(var),
                          options.training, options.momentum, options.eps, kCudnnEnabled);
}

Tensor instance_norm(const TensorView& input, const InstanceNormOptions& options) {
  if (options.use_input_stats) {
    if (options.running_mean || options.running_var) {
      throw_running_stats_update("instance_norm", "use_input_stats = true");
    }
    verify_spatial_size(input);
  }
  std::optional<Tensor> mean = lent_statistics(options.running_mean);
  std::optional<Tensor> var = lent_statistics(options.running_var);
  return aten::instance_norm(input, options.weight, options.bias, writable(mean), writable(var),
                             options.use_input_stats, options.momentum, options.eps, kCudnnEnabled);
}

Tensor layer_norm(const TensorView& input, IntList normalized_shape,
                  const LayerNormOptions& options) {
  return aten::layer_norm(input, normalized_shape, options.weight, options.bias, options.eps,
                          kCudnnEnabled);
}

Tensor group_norm(const TensorView& input, std::int64_t num_groups,
                  const GroupNormOptions& options) {
  if (input.dim() < 2) {
    throw Error(ErrorCode::BadArgument,
                "fp::functional::group_norm: Expected at least 2 dimensions for input tensor but "
                "received " +
                    std::to_string(input.dim()));
  }
  if (num_groups <= 0) {
    throw Error(ErrorCode::BadArgument,
                "fp::functional::group_norm: num_groups must be positive, got " +
                    std::to_string(num_groups));
  }
  std::vector<std::int64_t> grouped{input.size(0) * input.size(1) / num_groups, num_groups};
  for (std::int64_t i = 2; i < input.dim(); ++i)
    grouped.push_back(input.size(i));
  verify_batch_size(grouped, nn::detail::list_text(grouped), "group_norm");
  return aten::group_norm(input, num_groups, options.weight, options.bias, options.eps,
                          kCudnnEnabled);
}

Tensor normalize(const TensorView& input, const NormalizeOptions& options) {
  const Tensor norm = vector_norm(input, options.p, options.dim);
  return input / aten::clamp_min_Tensor(norm, python_number(options.eps));
}

}  // namespace fp::functional
