// Convolution layers: torch.nn.Conv1d/2d/3d and ConvTranspose1d/2d/3d.
// https://pytorch.org/docs/stable/nn.html#convolution-layers
//
//     fp::nn::Conv2d conv(3, 8, 3, {.stride = 2, .padding = 1, .padding_mode = "reflect"});
//
// Parameters `weight` ([out, in/groups, *kernel]; transposed: [in, out/groups, *kernel])
// and `bias` ([out], undefined with `.bias = false`) are public like Python's
// attributes, and are the state-dict keys "weight" and "bias".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "flash_powder/base/device.h"
#include "flash_powder/base/dtype.h"
#include "flash_powder/core/array_ref.h"
#include "flash_powder/nn/module.h"
#include "flash_powder/nn/options.h"

namespace fp::nn {

/// The keyword arguments of Conv1d/2d/3d, with PyTorch's defaults.
template <std::size_t N>
struct ConvOptions {
  /// The stride: one value for every dimension or one each.
  ExpandingArray<N> stride = 1;
  /// Numbers, or "valid" / "same" (the latter for stride 1 only).
  ConvPadding<N> padding = 0;
  /// The spacing between kernel elements.
  ExpandingArray<N> dilation = 1;
  /// The number of blocked connections from input to output channels.
  std::int64_t groups = 1;
  /// Whether the layer has a `bias`.
  bool bias = true;
  /// "zeros", "reflect", "replicate" or "circular".
  std::string padding_mode = "zeros";
  /// Where the parameters live (the CPU, or the DefaultDevice, when absent).
  std::optional<Device> device{};
  /// float32 when absent.
  std::optional<DType> dtype{};
};
/// Conv1d's keyword arguments.
using Conv1dOptions = ConvOptions<1>;
/// Conv2d's keyword arguments.
using Conv2dOptions = ConvOptions<2>;
/// Conv3d's keyword arguments.
using Conv3dOptions = ConvOptions<3>;

namespace detail {
/// What Conv1d/2d/3d share; use those.
template <std::size_t N>
class ConvNd : public Module {
 public:
  /// Throws fp::Error (with Python's message) for channels not divisible by
  /// groups, an unknown padding mode or padding="same" with a stride.
  ConvNd(std::int64_t in_channels, std::int64_t out_channels, ExpandingArray<N> kernel_size,
         const ConvOptions<N>& options = {});

  /// Reports `weight` and `bias`.
  void visit(Visitor& visitor) override;
  /// The convolution of `input` ([N, C, *] or [C, *]); a new Tensor.
  Tensor forward(TensorView input) const override;

  /// Channels in.
  std::int64_t in_channels;
  /// Channels out.
  std::int64_t out_channels;
  /// The kernel's size per dimension.
  ExpandingArray<N> kernel_size;
  /// The keyword arguments it was made with.
  ConvOptions<N> options;
  /// [out_channels, in_channels / groups, *kernel_size].
  Tensor weight;
  /// [out_channels] (undefined with `.bias = false`).
  Tensor bias;

 private:
  /// Python's `_reversed_padding_repeated_twice`, for padding modes other than zeros.
  std::vector<std::int64_t> reversed_padding_repeated_twice() const;
};
}  // namespace detail

/// https://pytorch.org/docs/stable/generated/torch.nn.Conv1d.html
class Conv1d : public detail::ConvNd<1> {
 public:
  using ConvNd::ConvNd;
};
/// https://pytorch.org/docs/stable/generated/torch.nn.Conv2d.html
class Conv2d : public detail::ConvNd<2> {
 public:
  using ConvNd::ConvNd;
};
/// https://pytorch.org/docs/stable/generated/torch.nn.Conv3d.html
class Conv3d : public detail::ConvNd<3> {
 public:
  using ConvNd::ConvNd;
};

/// The keyword arguments of ConvTranspose1d/2d/3d, with PyTorch's defaults.
template <std::size_t N>
struct ConvTransposeOptions {
  /// The stride: one value for every dimension or one each.
  ExpandingArray<N> stride = 1;
  /// The zero padding `dilation * (kernel_size - 1) - padding` added to both sides of the input.
  ExpandingArray<N> padding = 0;
  /// Extra size added to one side of each output dimension.
  ExpandingArray<N> output_padding = 0;
  /// The number of blocked connections from input to output channels.
  std::int64_t groups = 1;
  /// Whether the layer has a `bias`.
  bool bias = true;
  /// The spacing between kernel elements.
  ExpandingArray<N> dilation = 1;
  /// Only "zeros", as in PyTorch.
  std::string padding_mode = "zeros";
  /// Where the parameters live (the CPU, or the DefaultDevice, when absent).
  std::optional<Device> device{};
  /// The parameters' dtype (float32 when absent).
  std::optional<DType> dtype{};
};
/// ConvTranspose1d's keyword arguments.
using ConvTranspose1dOptions = ConvTransposeOptions<1>;
/// ConvTranspose2d's keyword arguments.
using ConvTranspose2dOptions = ConvTransposeOptions<2>;
using ConvTranspose3dOptions = ConvTransposeOptions<3>;

namespace detail {
/// What ConvTranspose1d/2d share; use those.
template <std::size_t N>
class ConvTransposeNd : public Module {
 public:
  /// Throws fp::Error (with Python's message) for channels not divisible by groups.
  ConvTransposeNd(std::int64_t in_channels, std::int64_t out_channels,
                  ExpandingArray<N> kernel_size, const ConvTransposeOptions<N>& options = {});

  /// Reports `weight` and `bias`.
  void visit(Visitor& visitor) override;
  /// The transposed convolution of `input` ([N, C, *] or [C, *]); a new Tensor.
  Tensor forward(TensorView input) const override;
  /// Python's `forward(input, output_size)`: picks the output padding that
  /// gives `output_size` (spatial sizes, optionally with batch and channels).
  Tensor forward(TensorView input, IntList output_size) const;

  /// Channels in.
  std::int64_t in_channels;
  /// Channels out.
  std::int64_t out_channels;
  /// The kernel's size per dimension.
  ExpandingArray<N> kernel_size;
  /// The keyword arguments it was made with.
  ConvTransposeOptions<N> options;
  /// [in_channels, out_channels / groups, *kernel_size].
  Tensor weight;
  /// [out_channels] (undefined with `.bias = false`).
  Tensor bias;

 private:
  std::vector<std::int64_t> output_padding_for(TensorView input, IntList output_size) const;
  Tensor run(TensorView input, const std::vector<std::int64_t>& output_padding) const;
};
}  // namespace detail

/// https://pytorch.org/docs/stable/generated/torch.nn.ConvTranspose1d.html
class ConvTranspose1d : public detail::ConvTransposeNd<1> {
 public:
  using ConvTransposeNd::ConvTransposeNd;
};
/// https://pytorch.org/docs/stable/generated/torch.nn.ConvTranspose2d.html
class ConvTranspose2d : public detail::ConvTransposeNd<2> {
 public:
  using ConvTransposeNd::ConvTransposeNd;
};
/// https://pytorch.org/docs/stable/generated/torch.nn.ConvTranspose3d.html
class ConvTranspose3d : public detail::ConvTransposeNd<3> {
 public:
  using ConvTransposeNd::ConvTransposeNd;
};

}  // namespace fp::nn
