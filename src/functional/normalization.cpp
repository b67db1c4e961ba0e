#include "flash_powder/functional/normalization.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "flash_powder/aten/aten.h"
#include "flash_powder/core/conversion.h"
#include "flash_powder/core/factory.h"
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

/// `dims` as non-negative dimensions of `input`, each once; throws as
/// PyTorch does for one out of range.
std::vector<std::int64_t> wrapped_dims(const TensorView& input, const nn::Dims& dims) {
  const std::int64_t rank = std::max<std::int64_t>(input.dim(), 1);
  std::vector<std::int64_t> out;
  for (const std::int64_t dim : dims.values()) {
    if (dim < -rank || dim >= rank) {
      throw Error(
          ErrorCode::BadArgument,
          "fp::functional::normalize: Dimension out of range (expected to be in range of [" +
              std::to_string(-rank) + ", " + std::to_string(rank - 1) + "], but got " +
              std::to_string(dim) + ")");
    }
    const std::int64_t wrapped = dim < 0 ? dim + rank : dim;
    if (std::find(out.begin(), out.end(), wrapped) != out.end()) {
      throw Error(ErrorCode::BadArgument, "fp::functional::normalize: dim " +
                                              std::to_string(wrapped) +
                                              " appears multiple times in the list of dims");
    }
    out.push_back(wrapped);
  }
  return out;
}

/// ||x||_p over `dims` for p other than 0, 2 and +-inf, summed as libtorch's
/// norm kernel sums: each output's |x|^p one after another, in the order of
/// memory (the reduced dimensions by decreasing stride, as its reduction
/// visits them), in float32 for float16/bfloat16. `aten::_cdist_forward`
/// to a zero row computes exactly that sum, per row; negative p (which cdist
/// refuses) sum |x|^p with cdist's p = 1 and take the 1/p power after.
Tensor sequential_norm(const TensorView& input, double p, const std::vector<std::int64_t>& dims) {
  std::vector<std::int64_t> order, kept_shape;
  std::int64_t reduced = 1;
  for (std::int64_t d = 0; d < input.dim(); ++d) {
    const bool reduce = std::find(dims.begin(), dims.end(), d) != dims.end();
    if (!reduce) order.push_back(d);
    kept_shape.push_back(reduce ? 1 : input.size(d));
    if (reduce) reduced *= input.size(d);
  }
  std::vector<std::int64_t> by_stride = dims;
  std::stable_sort(by_stride.begin(), by_stride.end(), [&](std::int64_t a, std::int64_t b) {
    return input.stride(a) > input.stride(b);
  });
  order.insert(order.end(), by_stride.begin(), by_stride.end());
  const DType dtype = input.dtype();
  const bool reduced_float = dtype == DType::F16 || dtype == DType::BF16;
  Tensor rows = input.permute(order).reshape({-1, reduced});
  if (reduced_float) rows = rows.to(DType::F32);
  const Tensor zero = fp::zeros({1, reduced}, TensorOptions(rows.dtype(), rows.device()));
  Tensor norms;
  if (p > 0) {
    norms = aten::_cdist_forward(rows, zero, p, std::nullopt);
  } else {
    const Tensor sums = aten::_cdist_forward(rows.abs().pow(p), zero, 1.0, std::nullopt);
    norms = sums.pow(1.0 / p);
  }
  return norms.to(dtype).reshape(kept_shape);
}

/// ||x||_p over `dims`, keeping them (Python's `input.norm(p, dim, keepdim=True)`).
Tensor vector_norm(const TensorView& input, double p, const std::vector<std::int64_t>& dims) {
  // p = None is Python's p = 2, and the same kernel as linalg.vector_norm(ord=2).
  if (p == 2.0) return aten::norm_ScalarOpt_dim(input, dims, true);
  // libtorch's kernel takes complex elements by their magnitude.
  if (is_complex(input.dtype())) return vector_norm(input.abs(), p, dims);
  if (p == 0.0) return input.ne(python_number(0.0)).sum(dims, true, input.dtype());
  const Tensor magnitude = input.abs();
  if (std::isinf(p)) return p > 0 ? magnitude.amax(dims, true) : magnitude.amin(dims, true);
  return sequential_norm(input, p, dims);
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
  if (!is_floating_point(input.dtype()) && !is_complex(input.dtype())) {
    throw Error(ErrorCode::BadArgument,
                "fp::functional::normalize: expected a floating-point or complex input, got " +
                    std::string(name(input.dtype())));
  }
  const Tensor norm = vector_norm(input, options.p, wrapped_dims(input, options.dim));
  return input / aten::clamp_min_Tensor(norm, python_number(options.eps));
}

Tensor rms_norm(const TensorView& input, IntList normalized_shape, const RmsNormOptions& options) {
  return aten::rms_norm(input, normalized_shape, options.weight, options.eps);
}

Tensor local_response_norm(const TensorView& input, std::int64_t size,
                           const LocalResponseNormOptions& options) {
  const std::int64_t rank = input.dim();
  if (rank < 3) {
    throw Error(ErrorCode::BadArgument,
                "fp::functional::local_response_norm: Expected 3D or higher dimensionality input "
                "(got " +
                    std::to_string(rank) + " dimensions)");
  }
  if (size <= 0) {
    throw Error(
        ErrorCode::BadArgument,
        "fp::functional::local_response_norm: size must be positive, got " + std::to_string(size));
  }
  if (input.numel() == 0) return Tensor(input);
  // Python's composition: the mean of x^2 over `size` channels, zero-padded
  // by size // 2 before and (size - 1) // 2 after, as an average pool.
  const Tensor squares = input * input;
  const std::int64_t before = size / 2, after = (size - 1) / 2;
  Tensor mean;
  if (rank == 3) {
    const Tensor padded = aten::pad(squares.unsqueeze(1), {0, 0, before, after});
    const Tensor pooled = aten::avg_pool2d(padded, {size, 1}, {1, 1});
    mean = pooled.reshape(input.sizes());
  } else {
    const auto sizes = input.sizes();
    const Tensor planes = squares.reshape({sizes[0], 1, sizes[1], sizes[2], -1});
    const Tensor padded = aten::pad(planes, {0, 0, 0, 0, before, after});
    const Tensor pooled = aten::avg_pool3d(padded, {size, 1, 1}, {1, 1, 1});
    mean = pooled.reshape(sizes);
  }
  const Tensor divisor =
      (mean * python_number(options.alpha) + python_number(options.k)).pow(Scalar(options.beta));
  return input / divisor;
}

}  // namespace fp::functional
