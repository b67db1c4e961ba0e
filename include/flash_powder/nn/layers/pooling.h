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

template <std::size_t N>
struct MaxPoolOptions {
  /// Defaults to the kernel size.
  OptionalExpandingArray<N> stride{};
  ExpandingArray<N> padding = 0;
  ExpandingArray<N> dilation = 1;
  bool return_indices = false;
  bool ceil_mode = false;
};
using MaxPool1dOptions = MaxPoolOptions<1>;
using MaxPool2dOptions = MaxPoolOptions<2>;

/// https://pytorch.org/docs/stable/generated/torch.nn.MaxPool1d.html
class MaxPool1d : public Module {
 public:
  explicit MaxPool1d(ExpandingArray<1> kernel_size, const MaxPool1dOptions& options = {})
      : kernel_size(kernel_size), options(options) {}
  Tensor forward(TensorView input) const override;
  std::tuple<Tensor, Tensor> forward_with_indices(TensorView input) const;

  ExpandingArray<1> kernel_size;
  MaxPool1dOptions options;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.MaxPool2d.html
class MaxPool2d : public Module {
 public:
  explicit MaxPool2d(ExpandingArray<2> kernel_size, const MaxPool2dOptions& options = {})
      : kernel_size(kernel_size), options(options) {}
  Tensor forward(TensorView input) const override;
  std::tuple<Tensor, Tensor> forward_with_indices(TensorView input) const;

  ExpandingArray<2> kernel_size;
  MaxPool2dOptions options;
};

struct AvgPool2dOptions {
  /// Defaults to the kernel size.
  OptionalExpandingArray<2> stride{};
  ExpandingArray<2> padding = 0;
  bool ceil_mode = false;
  bool count_include_pad = true;
  std::optional<std::int64_t> divisor_override{};
};

/// https://pytorch.org/docs/stable/generated/torch.nn.AvgPool2d.html
class AvgPool2d : public Module {
 public:
  explicit AvgPool2d(ExpandingArray<2> kernel_size, const AvgPool2dOptions& options = {})
      : kernel_size(kernel_size), options(options) {}
  Tensor forward(TensorView input) const override;

  ExpandingArray<2> kernel_size;
  AvgPool2dOptions options;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.AdaptiveAvgPool1d.html
class AdaptiveAvgPool1d : public Module {
 public:
  explicit AdaptiveAvgPool1d(ExpandingArray<1> output_size) : output_size(output_size) {}
  Tensor forward(TensorView input) const override;
  ExpandingArray<1> output_size;
};

/// `output_size` entries that are std::nullopt keep the input's size.
/// https://pytorch.org/docs/stable/generated/torch.nn.AdaptiveAvgPool2d.html
class AdaptiveAvgPool2d : public Module {
 public:
  explicit AdaptiveAvgPool2d(OutputSize<2> output_size) : output_size(output_size) {}
  Tensor forward(TensorView input) const override;
  OutputSize<2> output_size;
};

struct AdaptiveMaxPool2dOptions {
  bool return_indices = false;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.AdaptiveMaxPool2d.html
class AdaptiveMaxPool2d : public Module {
 public:
  explicit AdaptiveMaxPool2d(OutputSize<2> output_size,
                             const AdaptiveMaxPool2dOptions& options = {})
      : output_size(output_size), options(options) {}
  Tensor forward(TensorView input) const override;
  std::tuple<Tensor, Tensor> forward_with_indices(TensorView input) const;
  OutputSize<2> output_size;
  AdaptiveMaxPool2dOptions options;
};

}  // namespace fp::nn
