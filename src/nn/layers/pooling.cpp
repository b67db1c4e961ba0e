#include "flash_powder/nn/layers/pooling.h"

#include "flash_powder/functional/pooling.h"
#include "nn/messages.h"

namespace fp::nn {
namespace {

void reject_indices(bool return_indices, const char* layer) {
  if (return_indices) {
    detail::fail(layer,
                 "made with return_indices = true, it returns values and indices: call "
                 "forward_with_indices(input)");
  }
}

template <std::size_t N>
functional::MaxPoolOptions<N> functional_options(const MaxPoolOptions<N>& options) {
  return {.stride = options.stride,
          .padding = options.padding,
          .dilation = options.dilation,
          .ceil_mode = options.ceil_mode};
}

}  // namespace

Tensor MaxPool1d::forward(TensorView input) const {
  reject_indices(options.return_indices, "MaxPool1d");
  return functional::max_pool1d(input, kernel_size, functional_options(options));
}

std::tuple<Tensor, Tensor> MaxPool1d::forward_with_indices(TensorView input) const {
  return functional::max_pool1d_with_indices(input, kernel_size, functional_options(options));
}

Tensor MaxPool2d::forward(TensorView input) const {
  reject_indices(options.return_indices, "MaxPool2d");
  return functional::max_pool2d(input, kernel_size, functional_options(options));
}

std::tuple<Tensor, Tensor> MaxPool2d::forward_with_indices(TensorView input) const {
  return functional::max_pool2d_with_indices(input, kernel_size, functional_options(options));
}

Tensor AvgPool2d::forward(TensorView input) const {
  return functional::avg_pool2d(input, kernel_size,
                                {.stride = options.stride,
                                 .padding = options.padding,
                                 .ceil_mode = options.ceil_mode,
                                 .count_include_pad = options.count_include_pad,
                                 .divisor_override = options.divisor_override});
}

Tensor AdaptiveAvgPool1d::forward(TensorView input) const {
  return functional::adaptive_avg_pool1d(input, output_size);
}

Tensor AdaptiveAvgPool2d::forward(TensorView input) const {
  return functional::adaptive_avg_pool2d(input, output_size);
}

Tensor AdaptiveMaxPool2d::forward(TensorView input) const {
  reject_indices(options.return_indices, "AdaptiveMaxPool2d");
  return functional::adaptive_max_pool2d(input, output_size);
}

std::tuple<Tensor, Tensor> AdaptiveMaxPool2d::forward_with_indices(TensorView input) const {
  return functional::adaptive_max_pool2d_with_indices(input, output_size);
}

}  // namespace fp::nn
