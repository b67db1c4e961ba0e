#include "flash_powder/core/conversion.h"

#include <cstring>
#include <limits>
#include <string>

#include "flash_powder/aten/aten.h"

namespace fp {
namespace detail {

std::vector<std::int64_t> contiguous_strides(IntList sizes) {
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
  for (auto size : sizes)
    count *= size;
  if (count > 0) {
    std::memcpy(abi::mutable_data_ptr(handle.get()), bytes,
                static_cast<std::size_t>(count) * element_size(dtype));
  }
  return Tensor(std::move(handle));
}

namespace {

/// The range of an integer dtype, as doubles and as int64 (for exact checks).
struct DTypeLimits {
  double lowest;
  double highest;
};

DTypeLimits range_of(DType dtype) {
  switch (dtype) {
    case DType::U8:
      return {0, 255};
    case DType::U16:
      return {0, 65535};
    case DType::U32:
      return {0, 4294967295.0};
    case DType::U64:
      return {0, 18446744073709551615.0};
    case DType::I8:
      return {-128, 127};
    case DType::I16:
      return {-32768, 32767};
    case DType::I32:
      return {-2147483648.0, 2147483647};
    default:
      return {-9223372036854775808.0, 9223372036854775807.0};
  }
}

[[noreturn]] void overflow(DType dtype) {
  throw Error(ErrorCode::BadArgument, "fp::tensor: value cannot be converted to type " +
                                          std::string(name(dtype)) + " without overflow");
}

// Mirrors c10::overflows, which torch.tensor(values, dtype=...) applies: a
// floating value must lie within the integer type's range (NaN never does);
// an integer must too, except that negative values may wrap into unsigned
// types of the same magnitude (so -1 becomes 255 for uint8), which Python
// refuses only for uint64.
void check_integer_target(const Tensor& source, DType target) {
  const DTypeLimits range = range_of(target);
  const DType from = source.dtype();
  if (is_floating_point(from)) {
    for (double value : source.to_vector<double>()) {
      if (!(value >= range.lowest && value <= range.highest)) overflow(target);
    }
  } else if (from == DType::U64) {
    for (std::uint64_t value : source.to_vector<std::uint64_t>()) {
      if (static_cast<double>(value) > range.highest) overflow(target);
    }
  } else if (from != DType::Bool) {
    const bool unsigned_target = !is_signed(target);
    for (std::int64_t value : source.to_vector<std::int64_t>()) {
      const auto magnitude = static_cast<double>(value);
      const bool too_low = unsigned_target
                               ? (target == DType::U64 ? value < 0 : -magnitude > range.highest)
                               : magnitude < range.lowest;
      if (too_low || magnitude > range.highest) overflow(target);
    }
  }
}

}  // namespace

Tensor converted(Tensor tensor, DType dtype) {
  const DType from = tensor.dtype();
  if (from == dtype) return tensor;
  if (is_complex(from) && !is_complex(dtype)) {
    throw Error(ErrorCode::BadArgument,
                "fp::tensor: must be real number, not complex (converting to " +
                    std::string(name(dtype)) + ")");
  }
  if (is_integral(dtype)) check_integer_target(tensor, dtype);
  return aten::_to_copy(tensor, dtype);
}

void check_not_ragged(std::vector<std::int64_t>& sizes, std::size_t depth, std::int64_t length) {
  if (depth == sizes.size()) {
    sizes.push_back(length);
  } else if (sizes[depth] != length) {
    throw Error(ErrorCode::BadArgument,
                "fp::tensor: the nested lists are ragged: expected a list of length " +
                    std::to_string(sizes[depth]) + " at depth " + std::to_string(depth) + ", got " +
                    std::to_string(length));
  }
}

}  // namespace detail

namespace {

/// The number of bytes a strided tensor reaches from its first element, or an
/// error naming what does not fit into `available` bytes.
void check_blob_bounds(std::size_t available, IntList sizes, IntList strides, DType dtype) {
  if (!strides.empty() && strides.size() != sizes.size()) {
    throw Error(ErrorCode::BadArgument, "fp::from_blob: " + std::to_string(sizes.size()) +
                                            " sizes but " + std::to_string(strides.size()) +
                                            " strides");
  }
  const auto layout = strides.empty() ? detail::contiguous_strides(sizes) : strides.vec();
  std::int64_t last = 0;  // index of the furthest element
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0)
      throw Error(ErrorCode::BadArgument,
                  "fp::from_blob: negative size " + std::to_string(sizes[d]));
    if (sizes[d] == 0) return;  // no element is read
    if (layout[d] < 0)
      throw Error(ErrorCode::BadArgument,
                  "fp::from_blob: negative stride " + std::to_string(layout[d]));
    if (layout[d] > 0 &&
        sizes[d] - 1 > (std::numeric_limits<std::int64_t>::max() - last) / layout[d]) {
      throw Error(ErrorCode::BadArgument, "fp::from_blob: sizes and strides overflow int64");
    }
    last += (sizes[d] - 1) * layout[d];
  }
  const auto needed = static_cast<std::size_t>(last + 1) * element_size(dtype);
  if (needed > available) {
    throw Error(ErrorCode::BadArgument,
                "fp::from_blob: the sizes and strides reach " + std::to_string(needed) +
                    " bytes but the buffer holds " + std::to_string(available));
  }
}

abi::TensorHandle blob_handle(const std::byte* data, std::size_t available, IntList sizes,
                              IntList strides, DType dtype) {
  check_blob_bounds(available, sizes, strides, dtype);
  const auto layout = strides.empty() ? detail::contiguous_strides(sizes) : strides.vec();
  // libtorch's from_blob takes a non-const pointer; TensorView never writes.
  return abi::from_blob(const_cast<std::byte*>(data), sizes, layout, 0, dtype, Device::cpu(),
                        nullptr, nullptr);
}

}  // namespace

TensorMutView from_blob(std::span<std::byte> bytes, IntList sizes, IntList strides, DType dtype) {
  return detail::TensorAccess::mut_view(
      blob_handle(bytes.data(), bytes.size(), sizes, strides, dtype), nullptr, "from_blob");
}

TensorView from_blob(std::span<const std::byte> bytes, IntList sizes, IntList strides,
                     DType dtype) {
  return detail::TensorAccess::view(blob_handle(bytes.data(), bytes.size(), sizes, strides, dtype),
                                    nullptr, "from_blob");
}

}  // namespace fp
