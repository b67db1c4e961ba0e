// fp::aten::mkldnn: libtorch's fused oneDNN kernels for the CPU, the ones
// frozen AOTInductor packages call (torch._inductor.config.freezing):
// a convolution or linear layer that applies a pointwise operation (ReLU,
// SiLU, GELU, ...) or adds another tensor as it writes its output, with
// weights that may be pre-packed into oneDNN's layout
// (`fp::aten::mkldnn_reorder_conv2d_weight(fp::aten::to_mkldnn(w), ...)`).
// They reach libtorch through its backend C shims
// (torch/csrc/inductor/aoti_torch/c/shim_cpu.h), Python's
// `torch.ops.mkldnn._convolution_pointwise` and friends.
//
//     const fp::Tensor packed = fp::aten::mkldnn_reorder_conv2d_weight(
//         fp::aten::to_mkldnn(weight), {1, 1}, {1, 1}, {1, 1}, 1);
//     fp::Tensor y = fp::aten::mkldnn::_convolution_pointwise(
//         x, packed, bias, {1, 1}, {1, 1}, {1, 1}, 1, {.attr = "relu"});
//
// fp::nn::optimize_for_inference (flash_powder/nn/optimize.h) uses them for
// whole modules. Every tensor must be a CPU tensor (a weight may have
// oneDNN's layout): anything else throws fp::Error (ErrorCode::Unsupported)
// before libtorch sees it, and so does a torch built without oneDNN
// (ErrorCode::UnsupportedByTorch; see available()).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flash_powder/core/array_ref.h"
#include "flash_powder/core/tensor.h"
#include "flash_powder/core/tensor_arg.h"

namespace fp::aten::mkldnn {

/// The pointwise operation oneDNN applies to each output element
/// (at::native's fusion_unary_attr_map): `attr` is "none", "relu",
/// "sigmoid", "tanh", "swish" (SiLU), "hardswish", "hardsigmoid",
/// "leaky_relu" (`scalars` {negative_slope}), "hardtanh" ({min_val,
/// max_val}) or "gelu" (`algorithm` "none" or "tanh"). oneDNN computes
/// these itself, so except for ReLU and hardtanh the values may differ
/// from the eager op's in the last bits (as a frozen Inductor model's do).
struct PostOp {
  /// The operation's name in at::native's fusion_unary_attr_map.
  std::string attr = "none";
  /// Its scalar arguments, in order (none as nullopt).
  std::vector<std::optional<double>> scalars{};
  /// GELU's approximation ("none" or "tanh"); nullopt for the others.
  std::optional<std::string> algorithm{};
};

/// Whether the loaded libtorch has these kernels (it was built with oneDNN).
bool available() noexcept;

/// `mkldnn::_convolution_pointwise(Tensor X, Tensor W, Tensor? B, int[] padding, int[] stride, int[] dilation, int groups, str attr, Scalar?[] scalars, str? algorithm) -> Tensor`
/// A 2-d or 3-d convolution (X [N, C, H, W] or [N, C, D, H, W]) followed by
/// `post`; the result is in channels-last memory format.
Tensor _convolution_pointwise(TensorArg X, TensorArg W, std::optional<TensorArg> B, IntList padding,
                              IntList stride, IntList dilation, std::int64_t groups,
                              const PostOp& post = {});

/// `mkldnn::_convolution_pointwise.binary(Tensor X, Tensor other, Tensor W, Tensor? B, int[] padding, int[] stride, int[] dilation, int groups, str binary_attr, Scalar? alpha, str? unary_attr, Scalar?[] unary_scalars, str? unary_algorithm) -> Tensor`
/// `unary(binary(conv(X), other))`: `binary_attr` "add", "sub", "mul" or
/// "div", then `unary_attr` "relu" or none. A new tensor.
Tensor _convolution_pointwise_binary(TensorArg X, TensorArg other, TensorArg W,
                                     std::optional<TensorArg> B, IntList padding, IntList stride,
                                     IntList dilation, std::int64_t groups,
                                     std::string_view binary_attr,
                                     std::optional<std::string_view> unary_attr = std::nullopt);

/// `mkldnn::_convolution_pointwise_.binary(Tensor(a!) other, Tensor X, Tensor W, Tensor? B, int[] padding, int[] stride, int[] dilation, int groups, str binary_attr, Scalar? alpha, str? unary_attr, Scalar?[] unary_scalars, str? unary_algorithm) -> Tensor(a!)`
/// `other = unary(conv(X) + other)` ("add" only; `unary_attr` "relu" or
/// none), written into `other`: as one oneDNN convolution when `other` is
/// in channels-last memory format, else as the convolution and an add.
void _convolution_pointwise_binary_(MutableTensor other, TensorArg X, TensorArg W,
                                    std::optional<TensorArg> B, IntList padding, IntList stride,
                                    IntList dilation, std::int64_t groups,
                                    std::string_view binary_attr,
                                    std::optional<std::string_view> unary_attr = std::nullopt);

/// `mkldnn::_convolution_transpose_pointwise(Tensor X, Tensor W, Tensor? B, int[] padding, int[] output_padding, int[] stride, int[] dilation, int groups, str attr, Scalar?[] scalars, str? algorithm) -> Tensor`
/// A transposed convolution (W [C_in, C_out / groups, ...] as
/// torch.nn.ConvTranspose2d's weight) followed by `post`.
Tensor _convolution_transpose_pointwise(TensorArg X, TensorArg W, std::optional<TensorArg> B,
                                        IntList padding, IntList output_padding, IntList stride,
                                        IntList dilation, std::int64_t groups,
                                        const PostOp& post = {});

/// `mkldnn::_linear_pointwise(Tensor X, Tensor W, Tensor? B, str attr, Scalar?[] scalars, str? algorithm) -> Tensor`
/// `post(X W^T + B)` for W [out_features, in_features].
Tensor _linear_pointwise(TensorArg X, TensorArg W, std::optional<TensorArg> B,
                         const PostOp& post = {});

/// `mkldnn::_linear_pointwise.binary(Tensor X, Tensor other, Tensor W, Tensor? B, str attr) -> Tensor`
/// `binary(X W^T + B, other)` for `attr` "add", "sub", "mul" or "div".
Tensor _linear_pointwise_binary(TensorArg X, TensorArg other, TensorArg W,
                                std::optional<TensorArg> B, std::string_view attr);

}  // namespace fp::aten::mkldnn
