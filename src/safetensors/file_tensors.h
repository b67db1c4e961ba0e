// Between file tensors and fp tensors (internal): dtypes and shapes both
// ways, owned copies and views of a mapping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "flash_powder/core/tensor.h"
#include "flash_powder/safetensors/format.h"

namespace fp::safetensors::detail {

class Mapping;

/// A tensor's dtype and sizes as torch sees them.
struct TorchShape {
  DType dtype;
  std::vector<std::int64_t> sizes;
};

/// The torch dtype and sizes of the file tensor `info`: F4 holds two values
/// per byte, so its last dimension halves. Throws fp::Error naming the tensor
/// for a dtype torch lacks or an F4 shape torch cannot hold.
TorchShape torch_shape(const TensorInfo& info, std::string_view source);

/// A tensor's dtype and shape as the file records them. Throws fp::Error
/// naming the tensor for a dtype safetensors lacks or a 0-dim F4 tensor.
struct FileShape {
  FileDType dtype;
  std::vector<std::int64_t> shape;
};
FileShape file_shape(std::string_view name, DType dtype, std::span<const std::int64_t> sizes);

/// A new, uninitialised, contiguous CPU tensor.
Tensor empty_tensor(const TorchShape& shape);

/// An owned CPU tensor holding a copy of the bytes of `info` at `data`.
Tensor copied_tensor(const TensorInfo& info, const std::byte* data, std::string_view source);

/// A view of the bytes of `info` inside `mapping` (no copy) that keeps the
/// mapping alive; a copy when the bytes are not aligned for the dtype.
TensorView mapped_view(const TensorInfo& info, std::uint64_t data_start,
                       const std::shared_ptr<const Mapping>& mapping, std::string_view source);

}  // namespace fp::safetensors::detail
