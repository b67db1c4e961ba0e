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
  nn::ExpandingArray<N> stride = 1;
  /// Numbers, or "valid" / "same" (stride 1 only), as in Python.
  nn::ConvPadding<N> padding = 0;
  nn::ExpandingArray<N> dilation = 1;
  std::int64_t groups = 1;
};
using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;
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
  nn::ExpandingArray<N> stride = 1;
  nn::ExpandingArray<N> padding = 0;
  nn::ExpandingArray<N> output_padding = 0;
  std::int64_t groups = 1;
  nn::ExpandingArray<N> dilation = 1;
};
using ConvTranspose1dOptions = ConvTransposeOptions<1>;
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
