#include "flash_powder/nn/functional/conv.h"

#include <string>

#include "../aten_op.h"

namespace fp::functional {
namespace {

using nn::detail::AtenOp;

/// aten::convNd, or its `.padding` overload when padding is "same"/"valid".
template <std::size_t N>
Tensor convolution(const AtenOp& numeric, const AtenOp& by_mode, TensorView input,
                   TensorView weight, const std::optional<TensorView>& bias,
                   const ConvOptions<N>& options) {
  if (options.padding.is_mode()) {
    return by_mode(input, weight, bias, options.stride.values(), options.padding.mode(),
                   options.dilation.values(), options.groups);
  }
  return numeric(input, weight, bias, options.stride.values(), options.padding.numbers().values(),
                 options.dilation.values(), options.groups);
}

template <std::size_t N>
Tensor transposed_convolution(const AtenOp& op, TensorView input, TensorView weight,
                              const std::optional<TensorView>& bias,
                              const ConvTransposeOptions<N>& options) {
  return op(input, weight, bias, options.stride.values(), options.padding.values(),
            options.output_padding.values(), options.groups, options.dilation.values());
}

}  // namespace

Tensor conv1d(TensorView input, TensorView weight, std::optional<TensorView> bias,
              const Conv1dOptions& options) {
  static const AtenOp numeric("aten::conv1d", ""), by_mode("aten::conv1d", "padding");
  return convolution(numeric, by_mode, input, weight, bias, options);
}

Tensor conv2d(TensorView input, TensorView weight, std::optional<TensorView> bias,
              const Conv2dOptions& options) {
  static const AtenOp numeric("aten::conv2d", ""), by_mode("aten::conv2d", "padding");
  return convolution(numeric, by_mode, input, weight, bias, options);
}

Tensor conv3d(TensorView input, TensorView weight, std::optional<TensorView> bias,
              const Conv3dOptions& options) {
  static const AtenOp numeric("aten::conv3d", ""), by_mode("aten::conv3d", "padding");
  return convolution(numeric, by_mode, input, weight, bias, options);
}

Tensor conv_transpose1d(TensorView input, TensorView weight, std::optional<TensorView> bias,
                        const ConvTranspose1dOptions& options) {
  static const AtenOp op("aten::conv_transpose1d", "");
  return transposed_convolution(op, input, weight, bias, options);
}

Tensor conv_transpose2d(TensorView input, TensorView weight, std::optional<TensorView> bias,
                        const ConvTranspose2dOptions& options) {
  static const AtenOp op("aten::conv_transpose2d", "input");
  return transposed_convolution(op, input, weight, bias, options);
}

}  // namespace fp::functional
