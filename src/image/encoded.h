// Encoded bytes as a tensor (internal).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "flash_powder/core/factory.h"

namespace fp::image::detail {

/// A 1-D uint8 tensor holding a copy of `size` bytes (torchvision's encode_* result).
inline Tensor byte_tensor(const void* data, std::size_t size) {
  Tensor out = fp::empty({static_cast<std::int64_t>(size)}, DType::U8);
  if (size != 0) std::memcpy(out.data_mut<std::uint8_t>().data(), data, size);
  return out;
}

}  // namespace fp::image::detail
