// Pooling: torch.nn.functional.max_pool1d/2d, avg_pool2d, adaptive_*_pool*.
// https://pytorch.org/docs/stable/nn.functional.html#pooling-functions
//
//     fp::Tensor y = fp::functional::max_pool2d(x, 2);                 // stride = kernel
//     auto [values, indices] = fp::functional::max_pool2d_with_indices(x, 3, {.stride = 2});
//
// Python's `return_indices=True` is spelled `*_with_indices` here, so that
// each function has one return type. Each returns new Tensors.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>

#include "flash_powder/core/tensor.h"
#include "flash_powder/nn/options.h"

namespace fp::functional {

template <std::size_t N>
struct MaxPoolOptions {
  /// Defaults to the kernel size (Python's stride=None).
  nn::OptionalExpandingArray<N> stride{};
  nn::ExpandingArray<N> padding = 0;
  nn::ExpandingArray<N> dilation = 1;
  bool ceil_mode = false;
};
using MaxPool1dOptions = MaxPoolOptions<1>;
using MaxPool2dOptions = MaxPoolOptions<2>;

/// https://pytorch.org/docs/stable/generated/torch.nn.functional.max_pool1d.html
Tensor max_pool1d(const TensorView& input, nn::ExpandingArray<1> kernel_size,
                  const MaxPool1dOptions& options = {});
/// The maxima and their flat indices within each input plane (int64).
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const TensorView& input,
                                                   nn::ExpandingArray<1> kernel_size,
                                                   const MaxPool1dOptions& options = {});
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.max_pool2d.html
Tensor max_pool2d(const TensorView& input, nn::ExpandingArray<2> kernel_size,
                  const MaxPool2dOptions& options = {});
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const TensorView& input,
                                                   nn::ExpandingArray<2> kernel_size,
                                                   const MaxPool2dOptions& options = {});

struct AvgPool2dOptions {
  /// Defaults to the kernel size (Python's stride=None).
  nn::OptionalExpandingArray<2> stride{};
  nn::ExpandingArray<2> padding = 0;
  bool ceil_mode = false;
  bool count_include_pad = true;
  std::optional<std::int64_t> divisor_override{};
};
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.avg_pool2d.html
Tensor avg_pool2d(const TensorView& input, nn::ExpandingArray<2> kernel_size,
                  const AvgPool2dOptions& options = {});

/// https://pytorch.org/docs/stable/generated/torch.nn.functional.adaptive_avg_pool1d.html
Tensor adaptive_avg_pool1d(const TensorView& input, nn::ExpandingArray<1> output_size);
/// `output_size` entries that are std::nullopt keep the input's size.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.adaptive_avg_pool2d.html
Tensor adaptive_avg_pool2d(const TensorView& input, const nn::OutputSize<2>& output_size);
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.adaptive_max_pool2d.html
Tensor adaptive_max_pool2d(const TensorView& input, const nn::OutputSize<2>& output_size);
std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const TensorView& input,
                                                            const nn::OutputSize<2>& output_size);

}  // namespace fp::functional
