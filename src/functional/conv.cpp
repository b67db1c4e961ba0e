#include "flash_powder/functional/conv.h"

#include <string_view>

#include "flash_powder/aten/aten.h"

namespace fp::functional {
namespace {

/// aten::convNd with numeric padding, and its `.padding` overload, which takes "same"/"valid".
using NumericConvolution = Tensor (*)(TensorArg, TensorArg, std::optional<TensorArg>, IntList,
                                      IntList, IntList, std::int64_t);
using ModeConvolution = Tensor (*)(TensorArg, TensorArg, std::optional<TensorArg>, IntList,
                                   std::string_view, IntList, std::int64_t);
/// aten::conv_transposeNd.
using TransposedConvolution = Tensor (*)(TensorArg, TensorArg, std::optional<TensorArg>, IntList,
                                         IntList, IntList, std::int64_t, IntList);

template <std::size_t N>
Tensor convolution(NumericConvolution numeric, ModeConvolution by_mode, const TensorView& input,
                   const TensorView& weight, const std::optional<TensorView>& bias,
                   const ConvOptions<N>& options) {
  if (options.padding.is_mode()) {
    return by_mode(input, weight, bias, options.stride.values(), options.padding.mode(),
                   options.dilation.values(), options.groups);
  }
  return numeric(input, weight, bias, options.stride.values(), options.padding.numbers().values(),
                 options.dilation.values(), options.groups);
}

template <std::size_t N>
Tensor transposed_convolution(TransposedConvolution op, const TensorView& input,
                              const TensorView& weight, const std::optional<TensorView>& bias,
                              const ConvTransposeOptions<N>& options) {
  return op(input, weight, bias, options.stride.values(), options.padding.values(),
            options.output_padding.values(), options.groups, options.dilation.values());
}

}  // namespace

Tensor conv1d(const TensorView& input, const TensorView& weight,
              const std::optional<TensorView>& bias, const Conv1dOptions& options) {
  return convolution(&aten::conv1d, &aten::conv1d_padding, input, weight, bias, options);
}

Tensor conv2d(const TensorView& input, const TensorView& weight,
              const std::optional<TensorView>& bias, const Conv2dOptions& options) {
  return convolution(&aten::conv2d, &aten::conv2d_padding, input, weight, bias, options);
}

Tensor conv3d(const TensorView& input, const TensorView& weight,
              const std::optional<TensorView>& bias, const Conv3dOptions& options) {
  return convolution(&aten::conv3d, &aten::conv3d_padding, input, weight, bias, options);
}

Tensor conv_transpose1d(const TensorView& input, const TensorView& weight,
                        const std::optional<TensorView>& bias,
                        const ConvTranspose1dOptions& options) {
  return transposed_convolution(&aten::conv_transpose1d, input, weight, bias, options);
}

Tensor conv_transpose2d(const TensorView& input, const TensorView& weight,
                        const std::optional<TensorView>& bias,
                        const ConvTranspose2dOptions& options) {
  return transposed_convolution(&aten::conv_transpose2d_input, input, weight, bias, options);
}

Tensor conv_transpose3d(const TensorView& input, const TensorView& weight,
                        const std::optional<TensorView>& bias,
                        const ConvTranspose3dOptions& options) {
  return transposed_convolution(&aten::conv_transpose3d_input, input, weight, bias, options);
}

Tensor conv_tbc(const TensorView& input, const TensorView& weight, const TensorView& bias,
                std::int64_t pad) {
  return aten::conv_tbc(input, weight, bias, pad);
}

}  // namespace fp::functional
