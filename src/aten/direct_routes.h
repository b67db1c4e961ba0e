// The routes of the generated fp::aten wrappers around libtorch's dispatcher
// (abi/direct.h): views computed here and CPU kernels called directly.
//
// Each returns the result's handle, or an empty handle when the op must go
// through the dispatcher: the route is switched off (fp::abi::ForceDispatcher),
// a tensor is not one it handles (a CUDA, meta, sparse or quantized tensor),
// or the arguments are invalid. Invalid arguments are left to the dispatcher
// route so that the error is PyTorch's own, word for word.
#pragma once

#include <cstdint>
#include <optional>

#include "flash_powder/abi/tensor_handle.h"
#include "flash_powder/core/array_ref.h"
#include "flash_powder/core/tensor_arg.h"

namespace fp {
class TensorList;
}

namespace fp::aten::detail {

// --- views: PyTorch's geometry (aten/src/ATen/native/TensorShape.cpp) ---------------
abi::TensorHandle direct_transpose(const TensorArg& self, std::int64_t dim0, std::int64_t dim1);
abi::TensorHandle direct_t(const TensorArg& self);
abi::TensorHandle direct_select(const TensorArg& self, std::int64_t dim, std::int64_t index);
abi::TensorHandle direct_slice(const TensorArg& self, std::int64_t dim,
                               std::optional<std::int64_t> start, std::optional<std::int64_t> end,
                               std::int64_t step);
abi::TensorHandle direct_narrow(const TensorArg& self, std::int64_t dim, std::int64_t start,
                                std::int64_t length);
abi::TensorHandle direct_unsqueeze(const TensorArg& self, std::int64_t dim);
abi::TensorHandle direct_squeeze_dim(const TensorArg& self, std::int64_t dim);
abi::TensorHandle direct_permute(const TensorArg& self, IntList dims);
/// `reshape` and `view` where they give a view: PyTorch's infer_size and
/// computeStride (aten/src/ATen/TensorUtils.cpp). Where reshape must copy,
/// or the shape is invalid, the dispatcher route runs.
abi::TensorHandle direct_reshape(const TensorArg& self, IntList shape);

// --- CPU kernels (aoti_torch_cpu_<op>) -----------------------------------------------
abi::TensorHandle cpu_mul_Tensor(const TensorArg& self, const TensorArg& other);
abi::TensorHandle cpu_abs(const TensorArg& self);
abi::TensorHandle cpu_cat(const TensorList& tensors, std::int64_t dim);
/// `conv2d` of a batch ([N, C, H, W]) of real numbers: PyTorch's conv2d is
/// then `convolution(..., transposed=false, output_padding=0, groups)`, whose
/// kernel this calls through its shim. An unbatched input, complex numbers,
/// a bias of another dtype and lists that are not one or two numbers take
/// the dispatcher.
abi::TensorHandle cpu_conv2d(const TensorArg& input, const TensorArg& weight,
                             const std::optional<TensorArg>& bias, IntList stride, IntList padding,
                             IntList dilation, std::int64_t groups);
/// `clone` with memory_format preserve (`at::clone`) or contiguous (a new
/// contiguous tensor and `copy_`); other formats take the dispatcher.
abi::TensorHandle cpu_clone(const TensorArg& self, std::optional<MemoryFormat> memory_format);

}  // namespace fp::aten::detail
