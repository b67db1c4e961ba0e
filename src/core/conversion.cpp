#include "flash_powder/core/conversion.h"

#include <cstring>
#include <limits>
#include <string>

#include "flash_powder/abi/dispatch.h"

namespace fp {
namespace detail {

std::vector<std::int64_t> contiguous_strides(std::span<const std::int64_t> sizes) {
  std::vector<std::int64_t> strides(sizes.size());
  std::int64_t stride = 1;
  for (std::size_t d = sizes.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= std::max<std::int64_t>(sizes[d], 1);
  }
  return strides;
}

Tensor tensor_from_bytes(const void* bytes, std::span<const std::int64_t> sizes, DType dtype) {
  abi::TensorHandle handle =
      abi::empty_strided(sizes, contiguous_strides(sizes), dtype, Device::cpu());
  std::int64_t count = 1;
  for (auto size : sizes) count *= size;
  if (count > 0) {
    std::memcpy(abi::mutable_data_ptr(handle.get()), bytes,
                static_cast<std::size_t>(count) * element_size(dtype));
  }
  return Tensor(std::move(handle));
}

Tensor converted(Tensor tensor, DType dtype) {
  if (tensor.dtype() == dtype) return tensor;
  return dispatch<Tensor>("aten::_to_copy", "", tensor, dtype);
}

void check_not_ragged(std::vector<std::int64_t>& sizes, std::size_t depth, std::int64_t length) {
  if (depth == sizes.size()) {
    sizes.push_back(length);
  } else if (sizes[depth] != length) {
    throw Error("fp::tensor: the nested lists are ragged: expected a list of length " +
                std::to_string(sizes[depth]) + " at depth " + std::to_string(depth) + ", got " +
                std::to_string(length));
  }
}

}  // namespace detail

namespace {

/// The number of bytes a strided tensor reaches from its first element, or an
/// error naming what does not fit into `available` bytes.
void check_blob_bounds(std::size_t available, std::span<const std::int64_t> sizes,
                       std::span<const std::int64_t> strides, DType dtype) {
  if (!strides.empty() && strides.size() != sizes.size()) {
    throw Error("fp::from_blob: " + std::to_string(sizes.size()) + " sizes but " +
                std::to_string(strides.size()) + " strides");
  }
  const auto layout = strides.empty() ? detail::contiguous_strides(sizes)
                                      : std::vector<std::int64_t>(strides.begin(), strides.end());
  std::int64_t last = 0;  // index of the furthest element
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0) throw Error("fp::from_blob: negative size " + std::to_string(sizes[d]));
    if (sizes[d] == 0) return;  // no element is read
    if (layout[d] < 0) throw Error("fp::from_blob: negative stride " + std::to_string(layout[d]));
    if (layout[d] > 0 && sizes[d] - 1 > (std::numeric_limits<std::int64_t>::max() - last) / layout[d]) {
      throw Error("fp::from_blob: sizes and strides overflow int64");
    }
    last += (sizes[d] - 1) * layout[d];
  }
  const auto needed = static_cast<std::size_t>(last + 1) * element_size(dtype);
  if (needed > available) {
    throw Error("fp::from_blob: the sizes and strides reach " + std::to_string(needed) +
                " bytes but the buffer holds " + std::to_string(available));
  }
}

abi::TensorHandle blob_handle(const std::byte* data, std::size_t available,
                              std::span<const std::int64_t> sizes,
                              std::span<const std::int64_t> strides, DType dtype) {
  check_blob_bounds(available, sizes, strides, dtype);
  const auto layout = strides.empty() ? detail::contiguous_strides(sizes)
                                      : std::vector<std::int64_t>(strides.begin(), strides.end());
  // libtorch's from_blob takes a non-const pointer; TensorView never writes.
  return abi::from_blob(const_cast<std::byte*>(data), sizes, layout, 0, dtype, Device::cpu(),
                        nullptr, nullptr);
}

}  // namespace

TensorMutView from_blob(std::span<std::byte> bytes, std::span<const std::int64_t> sizes,
                        std::span<const std::int64_t> strides, DType dtype) {
  return TensorMutView(blob_handle(bytes.data(), bytes.size(), sizes, strides, dtype), nullptr,
                       "from_blob");
}

TensorView from_blob(std::span<const std::byte> bytes, std::span<const std::int64_t> sizes,
                     std::span<const std::int64_t> strides, DType dtype) {
  return TensorView(blob_handle(bytes.data(), bytes.size(), sizes, strides, dtype), nullptr,
                    "from_blob");
}

}  // namespace fp
