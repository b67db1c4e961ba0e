// Convolutions: torch.nn.functional.conv1d/2d/3d, conv_transpose1d/2d/3d and
// conv_tbc.
// https://pytorch.org/docs/stable/nn.functional.html#convolution-functions
//
//     fp::Tensor y = fp::functional::conv2d(x, weight, bias, {.stride = 2, .padding = 1});
//     fp::Tensor z = fp::functional::conv2d(x, weight, std::nullopt, {.padding = "same"});
//
// Each returns a new Tensor. Wrong shapes (e.g. a channel count that does not
// match the weight) throw fp::Error with libtorch's message.
#pragma once

#include <cstdint>
#include <optional>

#include "flash_powder/core/tensor.h"
#include "flash_powder/nn/options.h"

namespace fp::functional {

/// Keyword arguments of conv1d/conv2d/conv3d, with PyTorch's defaults.
template <std::size_t N>
struct ConvOptions {
  /// The stride: one value for every dimension or one each.
  nn::ExpandingArray<N> stride = 1;
  /// Numbers, or "valid" / "same" (stride 1 only), as in Python.
  nn::ConvPadding<N> padding = 0;
  /// The spacing between kernel elements.
  nn::ExpandingArray<N> dilation = 1;
  /// The number of blocked connections from input to output channels.
  std::int64_t groups = 1;
};
/// conv1d's keyword arguments.
using Conv1dOptions = ConvOptions<1>;
/// conv2d's keyword arguments.
using Conv2dOptions = ConvOptions<2>;
/// conv3d's keyword arguments.
using Conv3dOptions = ConvOptions<3>;

/// https://pytorch.org/docs/stable/generated/torch.nn.functional.conv1d.html
Tensor conv1d(const TensorView& input, const TensorView& weight,
              const std::optional<TensorView>& bias = std::nullopt,
              const Conv1dOptions& options = {});
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.conv2d.html
Tensor conv2d(const TensorView& input, const TensorView& weight,
              const std::optional<TensorView>& bias = std::nullopt,
              const Conv2dOptions& options = {});
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.conv3d.html
Tensor conv3d(const TensorView& input, const TensorView& weight,
              const std::optional<TensorView>& bias = std::nullopt,
              const Conv3dOptions& options = {});

/// Keyword arguments of conv_transpose1d/2d/3d, with PyTorch's defaults.
template <std::size_t N>
struct ConvTransposeOptions {
  /// The stride: one value for every dimension or one each.
  nn::ExpandingArray<N> stride = 1;
  /// The zero padding `dilation * (kernel_size - 1) - padding` added to both sides of the input.
  nn::ExpandingArray<N> padding = 0;
  /// Extra size added to one side of each output dimension.
  nn::ExpandingArray<N> output_padding = 0;
  /// The number of blocked connections from input to output channels.
  std::int64_t groups = 1;
  /// The spacing between kernel elements.
  nn::ExpandingArray<N> dilation = 1;
};
/// conv_transpose1d's keyword arguments.
using ConvTranspose1dOptions = ConvTransposeOptions<1>;
/// conv_transpose2d's keyword arguments.
using ConvTranspose2dOptions = ConvTransposeOptions<2>;
using ConvTranspose3dOptions = ConvTransposeOptions<3>;

/// https://pytorch.org/docs/stable/generated/torch.nn.functional.conv_transpose1d.html
Tensor conv_transpose1d(const TensorView& input, const TensorView& weight,
                        const std::optional<TensorView>& bias = std::nullopt,
                        const ConvTranspose1dOptions& options = {});
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.conv_transpose2d.html
Tensor conv_transpose2d(const TensorView& input, const TensorView& weight,
                        const std::optional<TensorView>& bias = std::nullopt,
                        const ConvTranspose2dOptions& options = {});
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.conv_transpose3d.html
Tensor conv_transpose3d(const TensorView& input, const TensorView& weight,
                        const std::optional<TensorView>& bias = std::nullopt,
                        const ConvTranspose3dOptions& options = {});

/// A 1-d convolution of a time-batch-channels input: `input` [time, batch,
/// in], `weight` [kernel, in, out], `bias` [out] (required, as in Python),
/// `pad` zeros at each end of the time dimension; [time', batch, out].
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.conv_tbc.html
Tensor conv_tbc(const TensorView& input, const TensorView& weight, const TensorView& bias,
                std::int64_t pad = 0);

}  // namespace fp::functional
