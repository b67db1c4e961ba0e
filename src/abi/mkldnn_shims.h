// libtorch's oneDNN (mkldnn) C shims for fused CPU kernels
// (torch/csrc/inductor/aoti_torch/c/shim_cpu.h): convolution and linear
// layers with a pointwise operation applied as their output is written,
// the kernels frozen AOTInductor packages call. They exist only in a torch
// built with oneDNN (x86-64 and aarch64 wheels), so they are looked up in the
// loaded libtorch rather than linked. Private to the library; fp::aten::mkldnn
// (flash_powder/aten/mkldnn.h) is the typed surface over them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>

#include "flash_powder/abi/error.h"
#include "flash_powder/abi/tensor_handle.h"

namespace fp::abi::mkldnn {

/// A oneDNN post-op after the computation: an `attr` of
/// at::native::fusion_unary_attr_map ("relu", "swish", "gelu", ...) with
/// its scalars (None as nullopt) and algorithm (gelu's "none" or "tanh").
struct Unary {
  std::string_view attr = "none";
  std::span<const std::optional<double>> scalars{};
  std::optional<std::string_view> algorithm{};
};

/// Whether the loaded libtorch has every shim below (a torch built without
/// oneDNN has none).
bool available() noexcept;

/// The position in `tensors` of the first that is not a defined CPU tensor
/// (a null handle counts as undefined), or nullopt: the shims below are CPU
/// kernels (a CUDA or undefined tensor must never reach them).
std::optional<std::size_t> first_not_on_cpu(std::initializer_list<RawTensor> tensors) noexcept;

/// `mkldnn::_convolution_pointwise(X, W, B?, padding, stride, dilation,
/// groups, attr, scalars, algorithm)`. `bias` may be null. Throws fp::Error
/// ("<what>: <libtorch's message>"), or ErrorCode::UnsupportedByTorch where
/// the loaded torch lacks the shim.
TensorHandle convolution_pointwise(RawTensor input, RawTensor weight, RawTensor bias,
                                   std::span<const std::int64_t> padding,
                                   std::span<const std::int64_t> stride,
                                   std::span<const std::int64_t> dilation, std::int64_t groups,
                                   const Unary& unary, std::string_view what);

/// `mkldnn::_convolution_pointwise.binary(X, other, W, B?, ..., binary_attr,
/// alpha=None, unary_attr, unary_scalars, unary_algorithm)`: a new tensor.
TensorHandle convolution_pointwise_binary(RawTensor input, RawTensor other, RawTensor weight,
                                          RawTensor bias, std::span<const std::int64_t> padding,
                                          std::span<const std::int64_t> stride,
                                          std::span<const std::int64_t> dilation,
                                          std::int64_t groups, std::string_view binary_attr,
                                          const Unary& unary, std::string_view what);

/// `mkldnn::_convolution_pointwise_.binary(other!, X, W, B?, ...)`: writes
/// the result into `other`.
void convolution_pointwise_binary_(RawTensor other, RawTensor input, RawTensor weight,
                                   RawTensor bias, std::span<const std::int64_t> padding,
                                   std::span<const std::int64_t> stride,
                                   std::span<const std::int64_t> dilation, std::int64_t groups,
                                   std::string_view binary_attr, const Unary& unary,
                                   std::string_view what);

/// `mkldnn::_convolution_transpose_pointwise(X, W, B?, padding,
/// output_padding, stride, dilation, groups, attr, scalars, algorithm)`.
TensorHandle convolution_transpose_pointwise(RawTensor input, RawTensor weight, RawTensor bias,
                                             std::span<const std::int64_t> padding,
                                             std::span<const std::int64_t> output_padding,
                                             std::span<const std::int64_t> stride,
                                             std::span<const std::int64_t> dilation,
                                             std::int64_t groups, const Unary& unary,
                                             std::string_view what);

/// `mkldnn::_linear_pointwise(X, W, B?, attr, scalars, algorithm)`.
TensorHandle linear_pointwise(RawTensor input, RawTensor weight, RawTensor bias, const Unary& unary,
                              std::string_view what);

/// `mkldnn::_linear_pointwise.binary(X, other, W, B?, attr)`.
TensorHandle linear_pointwise_binary(RawTensor input, RawTensor other, RawTensor weight,
                                     RawTensor bias, std::string_view binary_attr,
                                     std::string_view what);

}  // namespace fp::abi::mkldnn
