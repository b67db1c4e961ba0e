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

/// The keyword arguments of max_pool1d/2d, with PyTorch's defaults.
template <std::size_t N>
struct MaxPoolOptions {
  /// Defaults to the kernel size (Python's stride=None).
  nn::OptionalExpandingArray<N> stride{};
  /// Implicit negative-infinity padding on both sides.
  nn::ExpandingArray<N> padding = 0;
  /// The spacing between kernel elements.
  nn::ExpandingArray<N> dilation = 1;
  /// Round the output size up instead of down.
  bool ceil_mode = false;
};
/// max_pool1d's keyword arguments.
using MaxPool1dOptions = MaxPoolOptions<1>;
/// max_pool2d's keyword arguments.
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
/// The maxima and their flat indices within each input plane (int64).
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const TensorView& input,
                                                   nn::ExpandingArray<2> kernel_size,
                                                   const MaxPool2dOptions& options = {});

/// The keyword arguments of avg_pool2d, with PyTorch's defaults.
struct AvgPool2dOptions {
  /// Defaults to the kernel size (Python's stride=None).
  nn::OptionalExpandingArray<2> stride{};
  /// Implicit zero padding on both sides.
  nn::ExpandingArray<2> padding = 0;
  /// Round the output size up instead of down.
  bool ceil_mode = false;
  /// Count the padding in the average's divisor.
  bool count_include_pad = true;
  /// Divide by this instead of the window's size.
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
/// The maxima and their flat indices within each input plane (int64).
std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const TensorView& input,
                                                            const nn::OutputSize<2>& output_size);

}  // namespace fp::functional
