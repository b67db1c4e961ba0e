#include "flash_powder/functional/pooling.h"

#include <string>
#include <vector>

#include "flash_powder/aten/aten.h"

namespace fp::functional {
namespace {

/// ATen's `int[N] stride=[]` means "the kernel size", Python's stride=None.
template <std::size_t N>
std::vector<std::int64_t> stride_or_empty(const nn::OptionalExpandingArray<N>& stride) {
  return stride.has_value() ? (*stride).vec() : std::vector<std::int64_t>{};
}

/// `op`: aten::max_poolNd or aten::max_poolNd_with_indices.
template <class Op, std::size_t N>
auto max_pool(Op op, const TensorView& input, const nn::ExpandingArray<N>& kernel_size,
              const MaxPoolOptions<N>& options) {
  return op(input, kernel_size.values(), stride_or_empty(options.stride), options.padding.values(),
            options.dilation.values(), options.ceil_mode);
}

/// Python's `_list_with_default`: None entries take the input's size.
std::vector<std::int64_t> with_input_sizes(const TensorView& input,
                                           const nn::OutputSize<2>& output_size) {
  const auto& wanted = output_size.values();
  if (input.dim() <= static_cast<std::int64_t>(wanted.size())) {
    throw Error(ErrorCode::BadArgument,
                "fp::functional: adaptive pooling: Input dimension should be at least " +
                    std::to_string(wanted.size() + 1));
  }
  std::vector<std::int64_t> sizes;
  const std::int64_t first = input.dim() - static_cast<std::int64_t>(wanted.size());
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    sizes.push_back(wanted[i].value_or(input.size(first + static_cast<std::int64_t>(i))));
  }
  return sizes;
}

}  // namespace

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

Tensor avg_pool2d(const TensorView& input, nn::ExpandingArray<2> kernel_size,
                  const AvgPool2dOptions& options) {
  return aten::avg_pool2d(input, kernel_size.values(), stride_or_empty(options.stride),
                          options.padding.values(), options.ceil_mode, options.count_include_pad,
                          options.divisor_override);
}

Tensor adaptive_avg_pool1d(const TensorView& input, nn::ExpandingArray<1> output_size) {
  return aten::adaptive_avg_pool1d(input, output_size.values());
}

Tensor adaptive_avg_pool2d(const TensorView& input, const nn::OutputSize<2>& output_size) {
  return aten::adaptive_avg_pool2d(input, with_input_sizes(input, output_size));
}

Tensor adaptive_max_pool2d(const TensorView& input, const nn::OutputSize<2>& output_size) {
  return std::get<0>(adaptive_max_pool2d_with_indices(input, output_size));
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const TensorView& input,
                                                            const nn::OutputSize<2>& output_size) {
  return aten::adaptive_max_pool2d(input, with_input_sizes(input, output_size));
}

}  // namespace fp::functional
