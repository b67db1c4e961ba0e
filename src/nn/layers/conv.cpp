#include "flash_powder/nn/layers/conv.h"

#include <cmath>
#include <string>

#include "flash_powder/functional/conv.h"
#include "flash_powder/functional/vision.h"
#include "nn/messages.h"
#include "parameters.h"

namespace fp::nn {
namespace {

std::string conv_name(std::size_t n, bool transposed) {
  return (transposed ? "ConvTranspose" : "Conv") + std::to_string(n) + "d";
}

void check_groups(const std::string& layer, std::int64_t in_channels, std::int64_t out_channels,
                  std::int64_t groups) {
  if (groups <= 0) detail::fail(layer, "groups must be a positive integer");
  if (in_channels % groups != 0) detail::fail(layer, "in_channels must be divisible by groups");
  if (out_channels % groups != 0) detail::fail(layer, "out_channels must be divisible by groups");
}

/// PyTorch's kaiming_uniform_(a=sqrt(5)) and bias init both come down to
/// uniform(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = weight.size(1) * kernel.
template <std::size_t N>
void init_parameters(Tensor& weight, Tensor& bias, bool with_bias, std::int64_t rows,
                     std::int64_t columns, const ExpandingArray<N>& kernel_size,
                     const TensorOptions& options) {
  std::vector<std::int64_t> shape{rows, columns};
  std::int64_t fan_in = columns;
  for (auto k : kernel_size) {
    shape.push_back(k);
    fan_in *= k;
  }
  const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
  weight = detail::uniform_init(shape, bound, options);
  if (with_bias) bias = detail::uniform_init({rows}, bound, options);
}

}  // namespace

namespace detail {

template <std::size_t N>
ConvNd<N>::ConvNd(std::int64_t in_channels, std::int64_t out_channels,
                  ExpandingArray<N> kernel_size, const ConvOptions<N>& options)
    : in_channels(in_channels),
      out_channels(out_channels),
      kernel_size(kernel_size),
      options(options) {
  const std::string layer = conv_name(N, false);
  check_groups(layer, in_channels, out_channels, options.groups);
  if (options.padding.is_mode()) {
    const std::string& mode = options.padding.mode();
    if (mode != "same" && mode != "valid") {
      fail(layer, "Invalid padding string '" + mode + "', should be one of {'same', 'valid'}");
    }
    for (auto s : options.stride) {
      if (mode == "same" && s != 1) {
        fail(layer, "padding='same' is not supported for strided convolutions");
      }
    }
  }
  const std::string& padding_mode = options.padding_mode;
  if (padding_mode != "zeros" && padding_mode != "reflect" && padding_mode != "replicate" &&
      padding_mode != "circular") {
    fail(layer,
         "padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}, but got "
         "padding_mode='" +
             padding_mode + "'");
  }
  init_parameters(weight, bias, options.bias, out_channels, in_channels / options.groups,
                  kernel_size, layer_options(options.dtype, options.device));
}

template <std::size_t N>
void ConvNd<N>::visit(Visitor& visitor) {
  visitor.parameter("weight", weight);
  visitor.parameter("bias", bias);
}

template <std::size_t N>
std::vector<std::int64_t> ConvNd<N>::reversed_padding_repeated_twice() const {
  std::vector<std::int64_t> padding(2 * N);
  for (std::size_t d = 0; d < N; ++d) {
    const std::size_t reversed = N - 1 - d;
    std::int64_t left = 0, right = 0;
    if (!options.padding.is_mode()) {
      left = right = options.padding.numbers()[d];
    } else if (options.padding.mode() == "same") {
      const std::int64_t total = options.dilation[d] * (kernel_size[d] - 1);
      left = total / 2;
      right = total - left;
    }
    padding[2 * reversed] = left;
    padding[2 * reversed + 1] = right;
  }
  return padding;
}

template <std::size_t N>
Tensor ConvNd<N>::forward(TensorView input) const {
  using functional::ConvOptions;
  Tensor (*convolve)(const TensorView&, const TensorView&, const std::optional<TensorView>&,
                     const ConvOptions<N>&) = nullptr;
  if constexpr (N == 1) convolve = &functional::conv1d;
  if constexpr (N == 2) convolve = &functional::conv2d;
  if constexpr (N == 3) convolve = &functional::conv3d;
  ConvOptions<N> conv{.stride = options.stride,
                      .padding = options.padding,
                      .dilation = options.dilation,
                      .groups = options.groups};
  if (options.padding_mode == "zeros") return convolve(input, weight, optional_view(bias), conv);
  // Other modes pad explicitly, then convolve without padding (as PyTorch does).
  const Tensor padded =
      functional::pad(input, reversed_padding_repeated_twice(), {.mode = options.padding_mode});
  conv.padding = 0;
  return convolve(padded, weight, optional_view(bias), conv);
}

template class ConvNd<1>;
template class ConvNd<2>;
template class ConvNd<3>;

template <std::size_t N>
ConvTransposeNd<N>::ConvTransposeNd(std::int64_t in_channels, std::int64_t out_channels,
                                    ExpandingArray<N> kernel_size,
                                    const ConvTransposeOptions<N>& options)
    : in_channels(in_channels),
      out_channels(out_channels),
      kernel_size(kernel_size),
      options(options) {
  const std::string layer = conv_name(N, true);
  if (options.padding_mode != "zeros") {
    fail(layer, "Only \"zeros\" padding mode is supported for " + layer);
  }
  check_groups(layer, in_channels, out_channels, options.groups);
  init_parameters(weight, bias, false, in_channels, out_channels / options.groups, kernel_size,
                  layer_options(options.dtype, options.device));
  // The bias has out_channels entries, its bound still from weight.size(1) * kernel.
  if (options.bias) {
    std::int64_t fan_in = out_channels / options.groups;
    for (auto k : kernel_size)
      fan_in *= k;
    const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
    bias = uniform_init({out_channels}, bound, layer_options(options.dtype, options.device));
  }
}

template <std::size_t N>
void ConvTransposeNd<N>::visit(Visitor& visitor) {
  visitor.parameter("weight", weight);
  visitor.parameter("bias", bias);
}

template <std::size_t N>
Tensor ConvTransposeNd<N>::run(TensorView input,
                               const std::vector<std::int64_t>& output_padding) const {
  const functional::ConvTransposeOptions<N> conv{.stride = options.stride,
                                                 .padding = options.padding,
                                                 .output_padding = output_padding,
                                                 .groups = options.groups,
                                                 .dilation = options.dilation};
  if constexpr (N == 1) {
    return functional::conv_transpose1d(input, weight, optional_view(bias), conv);
  } else if constexpr (N == 2) {
    return functional::conv_transpose2d(input, weight, optional_view(bias), conv);
  } else {
    return functional::conv_transpose3d(input, weight, optional_view(bias), conv);
  }
}

template <std::size_t N>
Tensor ConvTransposeNd<N>::forward(TensorView input) const {
  return run(input, options.output_padding.vec());
}

template <std::size_t N>
Tensor ConvTransposeNd<N>::forward(TensorView input, IntList output_size) const {
  return run(input, output_padding_for(input, output_size));
}

/// Python's `_ConvTransposeNd._output_padding`, with its messages.
template <std::size_t N>
std::vector<std::int64_t> ConvTransposeNd<N>::output_padding_for(TensorView input,
                                                                 IntList output_size) const {
  const std::string layer = conv_name(N, true);
  const auto spatial = static_cast<std::int64_t>(N);
  const std::int64_t non_spatial = input.dim() == spatial + 2 ? 2 : 1;
  std::vector<std::int64_t> wanted = output_size.vec();
  if (static_cast<std::int64_t>(wanted.size()) == non_spatial + spatial) {
    wanted.erase(wanted.begin(), wanted.begin() + non_spatial);
  }
  if (wanted.size() != N) {
    fail(layer, "ConvTranspose" + std::to_string(N) + "D: for " + std::to_string(input.dim()) +
                    "D input, output_size must have " + std::to_string(N) + " or " +
                    std::to_string(non_spatial + spatial) + " elements (got " +
                    std::to_string(output_size.size()) + ")");
  }
  std::vector<std::int64_t> min_sizes, max_sizes;
  for (std::size_t d = 0; d < N; ++d) {
    const std::int64_t size =
        (input.size(static_cast<std::int64_t>(d) + non_spatial) - 1) * options.stride[d] -
        2 * options.padding[d] + options.dilation[d] * (kernel_size[d] - 1) + 1;
    min_sizes.push_back(size);
    max_sizes.push_back(size + options.stride[d] - 1);
  }
  std::vector<std::int64_t> padding;
  for (std::size_t d = 0; d < N; ++d) {
    if (wanted[d] < min_sizes[d] || wanted[d] > max_sizes[d]) {
      fail(layer, "requested an output size of " + list_text(wanted) +
                      ", but valid sizes range from " + list_text(min_sizes) + " to " +
                      list_text(max_sizes) + " (for an input of " +
                      torch_size(input.sizes().subspan(2)) + ")");
    }
    padding.push_back(wanted[d] - min_sizes[d]);
  }
  return padding;
}

template class ConvTransposeNd<1>;
template class ConvTransposeNd<2>;
template class ConvTransposeNd<3>;

}  // namespace detail
}  // namespace fp::nn
