#include "flash_powder/nn/layers/pooling.h"

#include <string>

#include "flash_powder/functional/pooling.h"
#include "nn/messages.h"
#include "parameters.h"

namespace fp::nn::detail {
namespace {

namespace F = functional;

/// The fp::functional pooling functions of each number of dimensions.
template <std::size_t N>
struct Functions;

template <>
struct Functions<1> {
  static constexpr auto max_pool = &F::max_pool1d;
  static constexpr auto max_pool_with_indices = &F::max_pool1d_with_indices;
  static constexpr auto avg_pool = &F::avg_pool1d;
  static constexpr auto adaptive_avg_pool = &F::adaptive_avg_pool1d;
  static constexpr auto adaptive_max_pool = &F::adaptive_max_pool1d;
  static constexpr auto adaptive_max_pool_with_indices = &F::adaptive_max_pool1d_with_indices;
  static constexpr auto lp_pool = &F::lp_pool1d;
  static constexpr auto max_unpool = &F::max_unpool1d;
};

template <>
struct Functions<2> {
  static constexpr auto max_pool = &F::max_pool2d;
  static constexpr auto max_pool_with_indices = &F::max_pool2d_with_indices;
  static constexpr auto avg_pool = &F::avg_pool2d;
  static constexpr auto adaptive_avg_pool = &F::adaptive_avg_pool2d;
  static constexpr auto adaptive_max_pool = &F::adaptive_max_pool2d;
  static constexpr auto adaptive_max_pool_with_indices = &F::adaptive_max_pool2d_with_indices;
  static constexpr auto lp_pool = &F::lp_pool2d;
  static constexpr auto max_unpool = &F::max_unpool2d;
  static constexpr auto fractional_max_pool_with_indices =
      static_cast<std::tuple<Tensor, Tensor> (*)(const TensorView&, ExpandingArray<2>,
                                                 const F::FractionalMaxPool2dOptions&)>(
          &F::fractional_max_pool2d_with_indices);
};

template <>
struct Functions<3> {
  static constexpr auto max_pool = &F::max_pool3d;
  static constexpr auto max_pool_with_indices = &F::max_pool3d_with_indices;
  static constexpr auto avg_pool = &F::avg_pool3d;
  static constexpr auto adaptive_avg_pool = &F::adaptive_avg_pool3d;
  static constexpr auto adaptive_max_pool = &F::adaptive_max_pool3d;
  static constexpr auto adaptive_max_pool_with_indices = &F::adaptive_max_pool3d_with_indices;
  static constexpr auto lp_pool = &F::lp_pool3d;
  static constexpr auto max_unpool = &F::max_unpool3d;
  static constexpr auto fractional_max_pool_with_indices =
      static_cast<std::tuple<Tensor, Tensor> (*)(const TensorView&, ExpandingArray<3>,
                                                 const F::FractionalMaxPool3dOptions&)>(
          &F::fractional_max_pool3d_with_indices);
};

void reject_indices(bool return_indices, const std::string& layer) {
  if (return_indices) {
    fail(layer,
         "made with return_indices = true, it returns values and indices: call "
         "forward_with_indices(input)");
  }
}

template <std::size_t N>
F::MaxPoolOptions<N> functional_options(const MaxPoolOptions<N>& options) {
  return {.stride = options.stride,
          .padding = options.padding,
          .dilation = options.dilation,
          .ceil_mode = options.ceil_mode};
}

F::AvgPool1dOptions functional_options(const AvgPool1dOptions& options) {
  return {.stride = options.stride,
          .padding = options.padding,
          .ceil_mode = options.ceil_mode,
          .count_include_pad = options.count_include_pad};
}

template <std::size_t N>
F::AvgPoolOptions<N> functional_options(const AvgPoolOptions<N>& options) {
  return {.stride = options.stride,
          .padding = options.padding,
          .ceil_mode = options.ceil_mode,
          .count_include_pad = options.count_include_pad,
          .divisor_override = options.divisor_override};
}

/// Python's checks in FractionalMaxPoolNd.__init__, with its messages.
template <std::size_t N>
void check_fractional(const std::string& layer, const ExpandingArray<N>& kernel_size,
                      const FractionalMaxPoolOptions<N>& options) {
  for (auto k : kernel_size) {
    if (k <= 0) {
      fail(layer, "kernel_size must be greater than 0, but got " + tuple_text(kernel_size.vec()));
    }
  }
  const bool sized = options.output_size.has_value(), ratio = options.output_ratio.has_value();
  if (!sized && !ratio) {
    fail(layer, layer + " requires specifying either an output size, or a pooling ratio");
  }
  if (sized && ratio) fail(layer, "only one of output_size and output_ratio may be specified");
  if (!ratio) return;
  std::string given;  // Python prints the ratio as given; here always as a tuple
  bool valid = true;
  for (double r : *options.output_ratio) {
    given += (given.empty() ? "(" : ", ") + python_float(r);
    valid = valid && 0 < r && r < 1;
  }
  if (!valid) fail(layer, "output_ratio must be between 0 and 1 (got " + given + "))");
}

}  // namespace

// --- MaxPool ----------------------------------------------------------------------------

template <std::size_t N>
Tensor MaxPoolNd<N>::forward(TensorView input) const {
  reject_indices(options.return_indices, type_name());
  return Functions<N>::max_pool(input, kernel_size, functional_options(options));
}

template <std::size_t N>
std::tuple<Tensor, Tensor> MaxPoolNd<N>::forward_with_indices(TensorView input) const {
  return Functions<N>::max_pool_with_indices(input, kernel_size, functional_options(options));
}

template class MaxPoolNd<1>;
template class MaxPoolNd<2>;
template class MaxPoolNd<3>;

// --- AvgPool ----------------------------------------------------------------------------

template <std::size_t N>
Tensor AvgPoolNd<N>::forward(TensorView input) const {
  return Functions<N>::avg_pool(input, kernel_size, functional_options(options));
}

template class AvgPoolNd<1>;
template class AvgPoolNd<2>;
template class AvgPoolNd<3>;

// --- Adaptive pooling -------------------------------------------------------------------

template <std::size_t N>
Tensor AdaptiveAvgPoolNd<N>::forward(TensorView input) const {
  return Functions<N>::adaptive_avg_pool(input, output_size);
}

template <std::size_t N>
Tensor AdaptiveMaxPoolNd<N>::forward(TensorView input) const {
  reject_indices(options.return_indices, type_name());
  return Functions<N>::adaptive_max_pool(input, output_size);
}

template <std::size_t N>
std::tuple<Tensor, Tensor> AdaptiveMaxPoolNd<N>::forward_with_indices(TensorView input) const {
  return Functions<N>::adaptive_max_pool_with_indices(input, output_size);
}

template class AdaptiveAvgPoolNd<1>;
template class AdaptiveAvgPoolNd<2>;
template class AdaptiveAvgPoolNd<3>;
template class AdaptiveMaxPoolNd<1>;
template class AdaptiveMaxPoolNd<2>;
template class AdaptiveMaxPoolNd<3>;

// --- LPPool -----------------------------------------------------------------------------

template <std::size_t N>
Tensor LPPoolNd<N>::forward(TensorView input) const {
  return Functions<N>::lp_pool(input, norm_type, kernel_size,
                               {.stride = options.stride, .ceil_mode = options.ceil_mode});
}

template class LPPoolNd<1>;
template class LPPoolNd<2>;
template class LPPoolNd<3>;

// --- MaxUnpool --------------------------------------------------------------------------

template <std::size_t N>
Tensor MaxUnpoolNd<N>::forward(TensorView input, TensorView indices) const {
  return Functions<N>::max_unpool(input, indices, kernel_size,
                                  {.stride = options.stride, .padding = options.padding});
}

template <std::size_t N>
Tensor MaxUnpoolNd<N>::forward(TensorView input, TensorView indices, IntList output_size) const {
  return Functions<N>::max_unpool(
      input, indices, kernel_size,
      {.stride = options.stride, .padding = options.padding, .output_size = output_size.vec()});
}

template class MaxUnpoolNd<1>;
template class MaxUnpoolNd<2>;
template class MaxUnpoolNd<3>;

// --- FractionalMaxPool ------------------------------------------------------------------

template <std::size_t N>
FractionalMaxPoolNd<N>::FractionalMaxPoolNd(ExpandingArray<N> kernel_size,
                                            const FractionalMaxPoolOptions<N>& options)
    : kernel_size(kernel_size), options(options) {
  // (type_name() would name this base class here, not the layer being made.)
  check_fractional("FractionalMaxPool" + std::to_string(N) + "d", kernel_size, options);
  if (options.random_samples.has_value()) random_samples = Tensor(*options.random_samples);
  this->options.random_samples.reset();
}

template <std::size_t N>
void FractionalMaxPoolNd<N>::visit(Visitor& visitor) {
  visitor.buffer("_random_samples", random_samples);
}

template <std::size_t N>
Tensor FractionalMaxPoolNd<N>::forward(TensorView input) const {
  reject_indices(options.return_indices, type_name());
  return std::get<0>(forward_with_indices(input));
}

template <std::size_t N>
std::tuple<Tensor, Tensor> FractionalMaxPoolNd<N>::forward_with_indices(TensorView input) const {
  return Functions<N>::fractional_max_pool_with_indices(
      input, kernel_size,
      {.output_size = options.output_size,
       .output_ratio = options.output_ratio,
       .random_samples = optional_view(random_samples)});
}

template class FractionalMaxPoolNd<2>;
template class FractionalMaxPoolNd<3>;

}  // namespace fp::nn::detail
