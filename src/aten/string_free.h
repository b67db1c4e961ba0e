// Ops with a `str` argument, computed without sending the string through
// torch_call_dispatcher, which leaks it (48 bytes a call) on torch 2.10-2.13
// (fp::torch_leaks_string_arguments()). These are the ops flash_powder's own
// layers and methods call with a string (docs/architecture.md, "Ops with
// string arguments"); their generated fp::aten wrappers try these first.
//
// Each route computes exactly what the op computes, with the kernels PyTorch's
// own implementation of the op calls: another overload or a C shim that takes
// the string as a C string. Each returns an empty handle (false for the
// in-place one) where it does not apply, and the wrapper then calls the op
// itself: on torch 2.14 and later, for arguments it does not cover, and for
// invalid arguments, so that the error is PyTorch's own.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "flash_powder/abi/ivalue.h"
#include "flash_powder/abi/tensor_handle.h"
#include "flash_powder/core/array_ref.h"
#include "flash_powder/core/tensor_arg.h"

namespace fp::aten::detail {

/// Whether the routes below run: where the loaded torch leaks strings, or
/// while a test forces them (force_string_free_routes) to compare them with
/// the ops themselves on any torch.
bool string_free_routes_enabled() noexcept;
/// Forces the routes on (true) or off (false), or back to the loaded
/// torch's need (std::nullopt). For tests; not thread-safe.
void force_string_free_routes(std::optional<bool> on) noexcept;

/// `gelu(self, approximate="none")` of a contiguous float32, float64 or float16
/// CPU tensor (not bfloat16: see is_gelu_dtype): the
/// CPU kernel of `_addmm_activation(self, [n, 0], [0, m], beta=1, use_gelu)`,
/// which copies `self` (an empty product adds nothing) and runs PyTorch's
/// gelu kernel on it in place, over the same elements in the same order.
abi::TensorHandle string_free_gelu(const TensorArg& self, std::string_view approximate);

/// `div(self, other, rounding_mode=...)`: None is `div.Tensor`, "floor" is
/// `floor_divide` (the same kernel), "trunc" is `trunc(div(a, b))` for
/// floating results (computed in float32 for float16/bfloat16, as the kernel
/// does) and `floor_divide(a - fmod(a, b), b)` for integers, both exact.
abi::TensorHandle string_free_div(const TensorArg& self, const TensorArg& other,
                                  std::optional<std::string_view> rounding_mode);
/// `self.div_(other, rounding_mode=...)`: the same, written into `self` where
/// its dtype can hold the result, as the in-place op requires.
bool string_free_div_(const MutableTensor& self, const TensorArg& other,
                      std::optional<std::string_view> rounding_mode);

/// `pad(self, pad, mode, value)`: its C shim (`at::pad`), on every torch and
/// device; the mode crosses as a C string.
abi::TensorHandle string_free_pad(const TensorArg& self, IntList pad, std::string_view mode,
                                  std::optional<double> value);

/// `conv{1,2,3}d(input, weight, bias, stride, padding="valid"|"same", dilation,
/// groups)`: PyTorch's `_convolution_mode` with numbers, "valid" as padding 0
/// and "same" as its symmetric padding, with the odd element of an
/// asymmetric one added on the right by `constant_pad_nd` first.
abi::TensorHandle string_free_conv(std::int64_t spatial_dims, const TensorArg& input,
                                   const TensorArg& weight, const std::optional<TensorArg>& bias,
                                   IntList stride, std::string_view padding, IntList dilation,
                                   std::int64_t groups);

// The same for fp::dispatch's calls of these ops (abi/string_free_routes.h):
// the captured arguments converted to the typed wrapper's, or nothing where
// they are not what it takes. Registered by the generated wrappers' files.
std::optional<abi::ReturnedValues> dispatched_gelu(std::span<const abi::Arg> args);
std::optional<abi::ReturnedValues> dispatched_div_Tensor_mode(std::span<const abi::Arg> args);
std::optional<abi::ReturnedValues> dispatched_pad(std::span<const abi::Arg> args);
std::optional<abi::ReturnedValues> dispatched_conv1d_padding(std::span<const abi::Arg> args);
std::optional<abi::ReturnedValues> dispatched_conv2d_padding(std::span<const abi::Arg> args);
std::optional<abi::ReturnedValues> dispatched_conv3d_padding(std::span<const abi::Arg> args);

}  // namespace fp::aten::detail
