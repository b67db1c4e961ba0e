#include "flash_powder/functional/pooling.h"

#include <cmath>
#include <string>
#include <vector>

#include "flash_powder/aten/aten.h"
#include "flash_powder/aten/shim.h"
#include "flash_powder/core/factory.h"
#include "nn/layers/parameters.h"
#include "nn/messages.h"

namespace fp::functional {
namespace {

[[noreturn]] void fail(const char* function, const std::string& message) {
  throw Error(ErrorCode::BadArgument, std::string("fp::functional::") + function + ": " + message);
}

/// ATen's `int[N] stride=[]` means "the kernel size", Python's stride=None.
template <std::size_t N, class T>
std::vector<T> stride_or_empty(const nn::OptionalExpandingArray<N, T>& stride) {
  return stride.has_value() ? (*stride).vec() : std::vector<T>{};
}

/// `op`: aten::max_poolNd or aten::max_poolNd_with_indices.
template <class Op, std::size_t N>
auto max_pool(Op op, const TensorView& input, const nn::ExpandingArray<N>& kernel_size,
              const MaxPoolOptions<N>& options) {
  return op(input, kernel_size.values(), stride_or_empty(options.stride), options.padding.values(),
            options.dilation.values(), options.ceil_mode);
}

/// aten::avg_pool2d or aten::avg_pool3d.
template <class Op, std::size_t N>
Tensor avg_pool(Op op, const TensorView& input, const nn::ExpandingArray<N>& kernel_size,
                const AvgPoolOptions<N>& options) {
  return op(input, kernel_size.values(), stride_or_empty(options.stride), options.padding.values(),
            options.ceil_mode, options.count_include_pad, options.divisor_override);
}

/// Python's `_list_with_default`: None entries take the input's size.
template <std::size_t N>
std::vector<std::int64_t> with_input_sizes(const TensorView& input,
                                           const nn::OutputSize<N>& output_size) {
  const auto& wanted = output_size.values();
  const auto dims = static_cast<std::int64_t>(N);
  if (input.dim() <= dims) {
    throw Error(ErrorCode::BadArgument,
                "fp::functional: adaptive pooling: Input dimension should be at least " +
                    std::to_string(N + 1));
  }
  std::vector<std::int64_t> sizes;
  for (std::size_t i = 0; i < N; ++i) {
    sizes.push_back(
        wanted[i].value_or(input.size(input.dim() - dims + static_cast<std::int64_t>(i))));
  }
  return sizes;
}

// --- lp_pool ----------------------------------------------------------------------------

template <std::size_t N>
using MaxPoolFunction = Tensor (*)(const TensorView&, nn::ExpandingArray<N>,
                                   const MaxPoolOptions<N>&);
template <std::size_t N, class AvgOptions>
using AvgPoolFunction = Tensor (*)(const TensorView&, nn::ExpandingArray<N>, const AvgOptions&);

/// Python's lp_poolNd, step by step: the same ops give the same bits.
template <std::size_t N, class AvgOptions>
Tensor lp_pool(const char* name, MaxPoolFunction<N> max_pool_n,
               AvgPoolFunction<N, AvgOptions> avg_pool_n, const TensorView& input, double norm_type,
               const nn::ExpandingArray<N>& kernel_size, const LPPoolOptions<N>& options) {
  if (std::isinf(norm_type)) {
    const MaxPoolOptions<N> max{.stride = options.stride, .ceil_mode = options.ceil_mode};
    const Tensor magnitude = aten::abs(input);
    if (norm_type > 0) return max_pool_n(magnitude, kernel_size, max);
    return aten::neg(max_pool_n(aten::neg(magnitude), kernel_size, max));
  }
  if (norm_type == 0) fail(name, "norm_type must not be 0 (Python: float division by zero)");
  const Tensor powered = aten::shim::pow_Tensor_Scalar(input, norm_type);
  const Tensor out = avg_pool_n(
      powered, kernel_size, AvgOptions{.stride = options.stride, .ceil_mode = options.ceil_mode});
  const Tensor magnitude = aten::mul_Tensor(aten::sign(out), aten::relu(aten::abs(out)));
  std::int64_t window = 1;
  for (auto k : kernel_size)
    window *= k;
  return aten::shim::pow_Tensor_Scalar(
      aten::shim::mul_Scalar(magnitude, static_cast<double>(window)), 1.0 / norm_type);
}

// --- max_unpool -------------------------------------------------------------------------

/// Python's `_unpool_output_size`, with its messages.
template <std::size_t N>
std::vector<std::int64_t> unpool_output_size(const char* name, const TensorView& input,
                                             const nn::ExpandingArray<N>& kernel_size,
                                             const MaxUnpoolOptions<N>& options) {
  const auto dims = static_cast<std::int64_t>(N);
  if (input.dim() < dims) {
    fail(name, "expected an input of at least " + std::to_string(N) + " dimensions, got " +
                   nn::detail::list_text(input.sizes()));
  }
  const nn::ExpandingArray<N>& stride = options.stride.value_or(kernel_size);
  std::vector<std::int64_t> defaults;
  for (std::size_t d = 0; d < N; ++d) {
    const std::int64_t in = input.size(input.dim() - dims + static_cast<std::int64_t>(d));
    defaults.push_back((in - 1) * stride[d] + kernel_size[d] - 2 * options.padding[d]);
  }
  std::vector<std::int64_t> sizes = defaults;
  if (options.output_size.has_value()) {
    sizes = options.output_size.values();
    if (sizes.size() == N + 2) sizes.erase(sizes.begin(), sizes.begin() + 2);
    if (options.output_size.is_single() || sizes.size() != N) {
      fail(name, "output_size should be a sequence containing " + std::to_string(N) + " or " +
                     std::to_string(N + 2) + " elements, but it has a length of '" +
                     std::to_string(options.output_size.values().size()) + "'");
    }
    for (std::size_t d = 0; d < N; ++d) {
      const std::int64_t low = defaults[d] - stride[d], high = defaults[d] + stride[d];
      if (!(low < sizes[d] && sizes[d] < high)) {
        fail(name, "invalid output_size \"" + nn::detail::list_text(sizes) + "\" (dim " +
                       std::to_string(d) + " must be between " + std::to_string(low) + " and " +
                       std::to_string(high) + ")");
      }
    }
  }
  for (std::size_t d = 0; d < N; ++d) {
    if (sizes[d] < 0) {
      fail(name,
           "max_unpooling: output_size must contain non-negative spatial dimensions, but got "
           "output_size[" +
               std::to_string(d) + "]=" + std::to_string(sizes[d]));
    }
  }
  return sizes;
}

// --- fractional_max_pool ----------------------------------------------------------------

/// The output size Python computes from output_size or output_ratio.
template <std::size_t N>
std::vector<std::int64_t> fractional_output_size(const char* name, const TensorView& input,
                                                 const FractionalMaxPoolOptions<N>& options) {
  if (!options.output_size.has_value() && !options.output_ratio.has_value()) {
    fail(name, std::string(name) + " requires specifying either an output_size or an output_ratio");
  }
  // Python's function would take output_size and ignore the ratio; its layers refuse both.
  if (options.output_size.has_value() && options.output_ratio.has_value()) {
    fail(name, "only one of output_size and output_ratio may be specified");
  }
  if (options.output_size.has_value()) return (*options.output_size).vec();
  std::vector<std::int64_t> sizes;
  const auto dims = static_cast<std::int64_t>(N);
  for (std::size_t d = 0; d < N; ++d) {
    const auto in =
        static_cast<double>(input.size(input.dim() - dims + static_cast<std::int64_t>(d)));
    sizes.push_back(static_cast<std::int64_t>(in * (*options.output_ratio)[d]));  // Python's int()
  }
  return sizes;
}

/// Python's `torch.rand(batch, channels, N, dtype=input.dtype, device=input.device)`.
template <std::size_t N>
Tensor drawn_samples(const char* name, const TensorView& input, Generator* generator) {
  if (!is_floating_point(input.dtype())) {
    fail(name, "the samples are drawn in the input's dtype, which must be floating point (got " +
                   std::string(fp::name(input.dtype())) + "); or give random_samples");
  }
  const auto dims = static_cast<std::int64_t>(N);
  const std::int64_t batch = input.dim() == dims + 1 ? 1 : input.size(0);
  const std::vector<std::int64_t> sizes{batch, input.size(-(dims + 1)), dims};
  const TensorOptions options(input.dtype(), input.device());
  return generator != nullptr ? rand(sizes, *generator, options)
                              : nn::detail::shared_rand(sizes, options);
}

/// aten::fractional_max_pool2d or aten::fractional_max_pool3d.
using FractionalOp = std::tuple<Tensor, Tensor> (*)(TensorArg, IntList, IntList, TensorArg);

template <std::size_t N>
std::tuple<Tensor, Tensor> fractional_max_pool(FractionalOp op, const char* name,
                                               const TensorView& input,
                                               const nn::ExpandingArray<N>& kernel_size,
                                               Generator* generator,
                                               const FractionalMaxPoolOptions<N>& options) {
  const auto dims = static_cast<std::int64_t>(N);
  if (input.dim() != dims + 1 && input.dim() != dims + 2) {
    fail(name, "Expected " + std::to_string(N + 1) + "D or " + std::to_string(N + 2) +
                   "D tensor, but got: " + nn::detail::list_text(input.sizes()));
  }
  const std::vector<std::int64_t> output_size = fractional_output_size(name, input, options);
  if (options.random_samples.has_value()) {
    return op(input, kernel_size.values(), output_size, *options.random_samples);
  }
  return op(input, kernel_size.values(), output_size, drawn_samples<N>(name, input, generator));
}

}  // namespace

// --- max_pool ---------------------------------------------------------------------------

Tensor max_pool1d(const TensorView& input, nn::ExpandingArray<1> kernel_size,
                  const MaxPool1dOptions& options) {
  return max_pool(&aten::max_pool1d, input, kernel_size, options);
}

std::tuple<Tensor, Tensor> max_pool1d_with_indices(const TensorView& input,
                                                   nn::ExpandingArray<1> kernel_size,
                                                   const MaxPool1dOptions& options) {
  return max_pool(&aten::max_pool1d_with_indices, input, kernel_size, options);
}

Tensor max_pool2d(const TensorView& input, nn::ExpandingArray<2> kernel_size,
                  const MaxPool2dOptions& options) {
  return max_pool(&aten::max_pool2d, input, kernel_size, options);
}

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const TensorView& input,
                                                   nn::ExpandingArray<2> kernel_size,
                                                   const MaxPool2dOptions& options) {
  return max_pool(&aten::max_pool2d_with_indices, input, kernel_size, options);
}

Tensor max_pool3d(const TensorView& input, nn::ExpandingArray<3> kernel_size,
                  const MaxPool3dOptions& options) {
  return max_pool(&aten::max_pool3d, input, kernel_size, options);
}

std::tuple<Tensor, Tensor> max_pool3d_with_indices(const TensorView& input,
                                                   nn::ExpandingArray<3> kernel_size,
                                                   const MaxPool3dOptions& options) {
  return max_pool(&aten::max_pool3d_with_indices, input, kernel_size, options);
}

// --- avg_pool ---------------------------------------------------------------------------

Tensor avg_pool1d(const TensorView& input, nn::ExpandingArray<1> kernel_size,
                  const AvgPool1dOptions& options) {
  return aten::avg_pool1d(input, kernel_size.values(), stride_or_empty(options.stride),
                          options.padding.values(), options.ceil_mode, options.count_include_pad);
}

Tensor avg_pool2d(const TensorView& input, nn::ExpandingArray<2> kernel_size,
                  const AvgPool2dOptions& options) {
  return avg_pool(&aten::avg_pool2d, input, kernel_size, options);
}

Tensor avg_pool3d(const TensorView& input, nn::ExpandingArray<3> kernel_size,
                  const AvgPool3dOptions& options) {
  return avg_pool(&aten::avg_pool3d, input, kernel_size, options);
}

// --- adaptive pooling -------------------------------------------------------------------

Tensor adaptive_avg_pool1d(const TensorView& input, nn::ExpandingArray<1> output_size) {
  return aten::adaptive_avg_pool1d(input, output_size.values());
}

Tensor adaptive_avg_pool2d(const TensorView& input, const nn::OutputSize<2>& output_size) {
  return aten::adaptive_avg_pool2d(input, with_input_sizes(input, output_size));
}

Tensor adaptive_avg_pool3d(const TensorView& input, const nn::OutputSize<3>& output_size) {
  return aten::adaptive_avg_pool3d(input, with_input_sizes(input, output_size));
}

Tensor adaptive_max_pool1d(const TensorView& input, nn::ExpandingArray<1> output_size) {
  return std::get<0>(adaptive_max_pool1d_with_indices(input, output_size));
}

std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const TensorView& input,
                                                            nn::ExpandingArray<1> output_size) {
  return aten::adaptive_max_pool1d(input, output_size.values());
}

Tensor adaptive_max_pool2d(const TensorView& input, const nn::OutputSize<2>& output_size) {
  return std::get<0>(adaptive_max_pool2d_with_indices(input, output_size));
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const TensorView& input,
                                                            const nn::OutputSize<2>& output_size) {
  return aten::adaptive_max_pool2d(input, with_input_sizes(input, output_size));
}

Tensor adaptive_max_pool3d(const TensorView& input, const nn::OutputSize<3>& output_size) {
  return std::get<0>(adaptive_max_pool3d_with_indices(input, output_size));
}

std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(const TensorView& input,
                                                            const nn::OutputSize<3>& output_size) {
  return aten::adaptive_max_pool3d(input, with_input_sizes(input, output_size));
}

// --- lp_pool ----------------------------------------------------------------------------

Tensor lp_pool1d(const TensorView& input, double norm_type, nn::ExpandingArray<1> kernel_size,
                 const LPPool1dOptions& options) {
  return lp_pool<1, AvgPool1dOptions>("lp_pool1d", &max_pool1d, &avg_pool1d, input, norm_type,
                                      kernel_size, options);
}

Tensor lp_pool2d(const TensorView& input, double norm_type, nn::ExpandingArray<2> kernel_size,
                 const LPPool2dOptions& options) {
  return lp_pool<2, AvgPool2dOptions>("lp_pool2d", &max_pool2d, &avg_pool2d, input, norm_type,
                                      kernel_size, options);
}

Tensor lp_pool3d(const TensorView& input, double norm_type, nn::ExpandingArray<3> kernel_size,
                 const LPPool3dOptions& options) {
  return lp_pool<3, AvgPool3dOptions>("lp_pool3d", &max_pool3d, &avg_pool3d, input, norm_type,
                                      kernel_size, options);
}

// --- max_unpool -------------------------------------------------------------------------

Tensor max_unpool1d(const TensorView& input, const TensorView& indices,
                    nn::ExpandingArray<1> kernel_size, const MaxUnpool1dOptions& options) {
  // As Python: max_unpool2d over a trailing dimension of size 1.
  std::vector<std::int64_t> sizes = unpool_output_size("max_unpool1d", input, kernel_size, options);
  sizes.push_back(1);
  const Tensor unpooled = aten::max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), sizes);
  return Tensor(unpooled.squeeze(-1));
}

Tensor max_unpool2d(const TensorView& input, const TensorView& indices,
                    nn::ExpandingArray<2> kernel_size, const MaxUnpool2dOptions& options) {
  return aten::max_unpool2d(input, indices,
                            unpool_output_size("max_unpool2d", input, kernel_size, options));
}

Tensor max_unpool3d(const TensorView& input, const TensorView& indices,
                    nn::ExpandingArray<3> kernel_size, const MaxUnpool3dOptions& options) {
  return aten::max_unpool3d(
      input, indices, unpool_output_size("max_unpool3d", input, kernel_size, options),
      options.stride.value_or(kernel_size).values(), options.padding.values());
}

// --- fractional_max_pool ----------------------------------------------------------------

Tensor fractional_max_pool2d(const TensorView& input, nn::ExpandingArray<2> kernel_size,
                             const FractionalMaxPool2dOptions& options) {
  return std::get<0>(fractional_max_pool2d_with_indices(input, kernel_size, options));
}

Tensor fractional_max_pool2d(const TensorView& input, nn::ExpandingArray<2> kernel_size,
                             Generator& generator, const FractionalMaxPool2dOptions& options) {
  return std::get<0>(fractional_max_pool2d_with_indices(input, kernel_size, generator, options));
}

std::tuple<Tensor, Tensor> fractional_max_pool2d_with_indices(
    const TensorView& input, nn::ExpandingArray<2> kernel_size,
    const FractionalMaxPool2dOptions& options) {
  return fractional_max_pool(&aten::fractional_max_pool2d, "fractional_max_pool2d", input,
                             kernel_size, nullptr, options);
}

std::tuple<Tensor, Tensor> fractional_max_pool2d_with_indices(
    const TensorView& input, nn::ExpandingArray<2> kernel_size, Generator& generator,
    const FractionalMaxPool2dOptions& options) {
  return fractional_max_pool(&aten::fractional_max_pool2d, "fractional_max_pool2d", input,
                             kernel_size, &generator, options);
}

Tensor fractional_max_pool3d(const TensorView& input, nn::ExpandingArray<3> kernel_size,
                             const FractionalMaxPool3dOptions& options) {
  return std::get<0>(fractional_max_pool3d_with_indices(input, kernel_size, options));
}

Tensor fractional_max_pool3d(const TensorView& input, nn::ExpandingArray<3> kernel_size,
                             Generator& generator, const FractionalMaxPool3dOptions& options) {
  return std::get<0>(fractional_max_pool3d_with_indices(input, kernel_size, generator, options));
}

std::tuple<Tensor, Tensor> fractional_max_pool3d_with_indices(
    const TensorView& input, nn::ExpandingArray<3> kernel_size,
    const FractionalMaxPool3dOptions& options) {
  return fractional_max_pool(&aten::fractional_max_pool3d, "fractional_max_pool3d", input,
                             kernel_size, nullptr, options);
}

std::tuple<Tensor, Tensor> fractional_max_pool3d_with_indices(
    const TensorView& input, nn::ExpandingArray<3> kernel_size, Generator& generator,
    const FractionalMaxPool3dOptions& options) {
  return fractional_max_pool(&aten::fractional_max_pool3d, "fractional_max_pool3d", input,
                             kernel_size, &generator, options);
}

}  // namespace fp::functional
