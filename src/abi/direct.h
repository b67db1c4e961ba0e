// Routes around libtorch's dispatcher (the public switch is in
// flash_powder/abi/routes.h): which tensors a CPU kernel or a computed view
// takes, and the C shims themselves. Private to the library.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>

#include "flash_powder/abi/routes.h"
#include "flash_powder/abi/tensor_handle.h"

namespace fp::abi {

/// Whether a view of `tensor` can be computed here: a defined, strided tensor
/// of a dtype flash_powder knows (not sparse, not quantized), on any device.
bool viewable(RawTensor tensor) noexcept;

/// Whether every tensor is a defined, strided CPU tensor of a dtype
/// flash_powder knows: what libtorch's CPU kernels are for. A CUDA or a meta
/// tensor among them sends the op to the dispatcher.
bool all_plain_cpu(std::initializer_list<RawTensor> tensors) noexcept;
bool all_plain_cpu(std::span<const RawTensor> tensors) noexcept;

/// A tensor sharing `source`'s storage with the given sizes and strides;
/// `offset_increment` is ADDED to `source`'s storage offset
/// (aoti_torch__reinterpret_tensor). The caller has checked the geometry.
TensorHandle reinterpret(RawTensor source, std::span<const std::int64_t> sizes,
                         std::span<const std::int64_t> strides, std::int64_t offset_increment);

/// `clone()` (memory_format preserve) of a tensor on any device:
/// `aoti_torch_clone`, PyTorch's `at::clone` through its C++ API (the
/// dispatcher without a lookup by name).
TensorHandle clone(RawTensor self, std::string_view what);

/// `aten::pad(self, pad, mode, value)` on any device through its C shim
/// (`aoti_torch_aten_pad`, PyTorch's `at::pad`), which takes the mode as a C
/// string: no string crosses torch_call_dispatcher.
TensorHandle pad(RawTensor self, std::span<const std::int64_t> pad, const char* mode,
                 std::optional<double> value, std::string_view what);

/// libtorch's CPU kernels (`at::cpu::<op>`) through their C shims. Only for
/// tensors all_plain_cpu() accepts; `what` names the op in errors
/// ("aten::mul.Tensor: <libtorch's message>").
namespace cpu {
TensorHandle mul_Tensor(RawTensor self, RawTensor other, std::string_view what);
TensorHandle abs(RawTensor self, std::string_view what);
TensorHandle cat(std::span<const RawTensor> tensors, std::int64_t dim, std::string_view what);
/// `convolution(input, weight, bias, stride, padding, dilation, transposed,
/// output_padding, groups)`: PyTorch's convolution kernel
/// (at::native::convolution, which conv1d/2d/3d and conv_transpose call),
/// without the autograd layer. `bias` may be null.
TensorHandle convolution(RawTensor input, RawTensor weight, RawTensor bias,
                         std::span<const std::int64_t> stride,
                         std::span<const std::int64_t> padding,
                         std::span<const std::int64_t> dilation, bool transposed,
                         std::span<const std::int64_t> output_padding, std::int64_t groups,
                         std::string_view what);
/// `clone(memory_format=torch.contiguous_format)`: a new contiguous tensor
/// (`aoti_torch_empty_strided`) and `copy_` into it, as PyTorch's clone does.
TensorHandle contiguous_clone(RawTensor self, std::string_view what);

}  // namespace cpu

}  // namespace fp::abi
