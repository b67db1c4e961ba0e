// Pooling layers: torch.nn.MaxPool1d/2d, AvgPool2d, AdaptiveAvgPool1d/2d,
// AdaptiveMaxPool2d. https://pytorch.org/docs/stable/nn.html#pooling-layers
//
// Made with `.return_indices = true`, the max pools return values and indices
// from forward_with_indices(); forward() then throws, since it returns one tensor.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>

#include "flash_powder/nn/module.h"
#include "flash_powder/nn/options.h"

namespace fp::nn {

/// The keyword arguments of MaxPool1d/2d, with PyTorch's defaults.
template <std::size_t N>
struct MaxPoolOptions {
  /// Defaults to the kernel size.
  OptionalExpandingArray<N> stride{};
  /// Implicit negative-infinity padding on both sides.
  ExpandingArray<N> padding = 0;
  /// The spacing between kernel elements.
  ExpandingArray<N> dilation = 1;
  /// Python's forward then returns (maxima, indices): here forward() throws
  /// fp::Error and forward_with_indices() returns both (C++ cannot change a
  /// return type at run time).
  bool return_indices = false;
  /// Round the output size up instead of down.
  bool ceil_mode = false;
};
/// MaxPool1d's keyword arguments.
using MaxPool1dOptions = MaxPoolOptions<1>;
/// MaxPool2d's keyword arguments.
using MaxPool2dOptions = MaxPoolOptions<2>;

/// https://pytorch.org/docs/stable/generated/torch.nn.MaxPool1d.html
class MaxPool1d : public Module {
 public:
  /// Max pooling over windows of `kernel_size`.
  explicit MaxPool1d(ExpandingArray<1> kernel_size, const MaxPool1dOptions& options = {})
      : kernel_size(kernel_size), options(options) {}
  Tensor forward(TensorView input) const override;
  /// The maxima and their flat indices within each input plane (int64).
  std::tuple<Tensor, Tensor> forward_with_indices(TensorView input) const;

  /// The window's size.
  ExpandingArray<1> kernel_size;
  /// The keyword arguments it was made with.
  MaxPool1dOptions options;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.MaxPool2d.html
class MaxPool2d : public Module {
 public:
  /// Max pooling over windows of `kernel_size`.
  explicit MaxPool2d(ExpandingArray<2> kernel_size, const MaxPool2dOptions& options = {})
      : kernel_size(kernel_size), options(options) {}
  Tensor forward(TensorView input) const override;
  /// The maxima and their flat indices within each input plane (int64).
  std::tuple<Tensor, Tensor> forward_with_indices(TensorView input) const;

  /// The window's size per dimension.
  ExpandingArray<2> kernel_size;
  /// The keyword arguments it was made with.
  MaxPool2dOptions options;
};

/// The keyword arguments of AvgPool2d, with PyTorch's defaults.
struct AvgPool2dOptions {
  /// Defaults to the kernel size.
  OptionalExpandingArray<2> stride{};
  /// Implicit zero padding on both sides.
  ExpandingArray<2> padding = 0;
  /// Round the output size up instead of down.
  bool ceil_mode = false;
  /// Count the padding in the average's divisor.
  bool count_include_pad = true;
  /// Divide by this instead of the window's size.
  std::optional<std::int64_t> divisor_override{};
};

/// https://pytorch.org/docs/stable/generated/torch.nn.AvgPool2d.html
class AvgPool2d : public Module {
 public:
  /// Average pooling over windows of `kernel_size`.
  explicit AvgPool2d(ExpandingArray<2> kernel_size, const AvgPool2dOptions& options = {})
      : kernel_size(kernel_size), options(options) {}
  Tensor forward(TensorView input) const override;

  /// The window's size per dimension.
  ExpandingArray<2> kernel_size;
  /// The keyword arguments it was made with.
  AvgPool2dOptions options;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.AdaptiveAvgPool1d.html
class AdaptiveAvgPool1d : public Module {
 public:
  /// Pools to `output_size` values.
  explicit AdaptiveAvgPool1d(ExpandingArray<1> output_size) : output_size(output_size) {}
  Tensor forward(TensorView input) const override;
  /// The output's size.
  ExpandingArray<1> output_size;
};

/// `output_size` entries that are std::nullopt keep the input's size.
/// https://pytorch.org/docs/stable/generated/torch.nn.AdaptiveAvgPool2d.html
class AdaptiveAvgPool2d : public Module {
 public:
  /// Pools to `output_size` (std::nullopt keeps the input's size).
  explicit AdaptiveAvgPool2d(OutputSize<2> output_size) : output_size(output_size) {}
  Tensor forward(TensorView input) const override;
  /// The output's size.
  OutputSize<2> output_size;
};

/// The keyword arguments of AdaptiveMaxPool2d, with PyTorch's defaults.
struct AdaptiveMaxPool2dOptions {
  /// Python's forward then returns (maxima, indices): here forward() throws
  /// fp::Error and forward_with_indices() returns both.
  bool return_indices = false;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.AdaptiveMaxPool2d.html
class AdaptiveMaxPool2d : public Module {
 public:
  /// Pools to `output_size` (std::nullopt keeps the input's size).
  explicit AdaptiveMaxPool2d(OutputSize<2> output_size,
                             const AdaptiveMaxPool2dOptions& options = {})
      : output_size(output_size), options(options) {}
  Tensor forward(TensorView input) const override;
  /// The maxima and their flat indices within each input plane (int64).
  std::tuple<Tensor, Tensor> forward_with_indices(TensorView input) const;
  /// The output's size.
  OutputSize<2> output_size;
  /// The keyword arguments it was made with.
  AdaptiveMaxPool2dOptions options;
};

}  // namespace fp::nn
