#include "file_tensors.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "flash_powder/core/conversion.h"
#include "messages.h"
#include "posix_file.h"

namespace fp::safetensors::detail {
namespace {

[[noreturn]] void fail_tensor(std::string_view source, std::string_view name,
                              const std::string& message) {
  throw Error(ErrorCode::Format,
              message_prefix(source) + "tensor " + in_quotes(name) + ": " + message);
}

/// The deleter of a view of a mapping: drops that view's share of it.
void release_mapping(void*, void* owner) noexcept {
  delete static_cast<std::shared_ptr<const Mapping>*>(owner);
}

bool aligned_for(const void* address, DType dtype) {
  return reinterpret_cast<std::uintptr_t>(address) % element_size(dtype) == 0;
}

std::int64_t element_count(std::span<const std::int64_t> sizes) {
  std::int64_t count = 1;
  for (const std::int64_t size : sizes)
    count *= size;  // validated: cannot overflow
  return count;
}

}  // namespace

TorchShape torch_shape(const TensorInfo& info, std::string_view source) {
  const std::optional<DType> dtype = to_dtype(info.dtype);
  if (!dtype) {
    fail_tensor(source, info.name,
                "torch has no dtype for the safetensors dtype " + std::string(name(info.dtype)));
  }
  TorchShape shape{*dtype, info.shape};
  if (info.dtype == FileDType::F4) {
    // torch.float4_e2m1fn_x2 packs two values into each element, along the
    // last dimension, as Python's safetensors does.
    if (shape.sizes.empty() || shape.sizes.back() % 2 != 0) {
      fail_tensor(source, info.name,
                  "F4 shape " + shape_text(info.shape) +
                      " needs an even last dimension to become torch.float4_e2m1fn_x2");
    }
    shape.sizes.back() /= 2;
  }
  return shape;
}

FileShape file_shape(std::string_view tensor_name, DType dtype,
                     std::span<const std::int64_t> sizes) {
  const std::optional<FileDType> file_dtype = to_file_dtype(dtype);
  if (!file_dtype) {
    fail_tensor("save", tensor_name,
                "safetensors has no dtype for torch." + std::string(name(dtype)));
  }
  FileShape shape{*file_dtype, {sizes.begin(), sizes.end()}};
  if (*file_dtype == FileDType::F4) {
    if (shape.shape.empty()) {
      fail_tensor("save", tensor_name,
                  "a 0-dim float4_e2m1fn_x2 tensor has no last dimension to hold its two values");
    }
    shape.shape.back() *= 2;
  }
  return shape;
}

Tensor empty_tensor(const TorchShape& shape) {
  return Tensor(abi::empty_strided(shape.sizes, fp::detail::contiguous_strides(shape.sizes),
                                   shape.dtype, Device::cpu()));
}

Tensor copied_tensor(const TensorInfo& info, const std::byte* data, std::string_view source) {
  const TorchShape shape = torch_shape(info, source);
  return fp::detail::tensor_from_bytes(data, shape.sizes, shape.dtype);
}

TensorView mapped_view(const TensorInfo& info, std::uint64_t data_start,
                       const std::shared_ptr<const Mapping>& mapping, std::string_view source) {
  const TorchShape shape = torch_shape(info, source);
  const std::byte* data = mapping->bytes().data() + data_start + info.begin;
  if (element_count(shape.sizes) == 0 || !aligned_for(data, shape.dtype)) {
    // Nothing to share, or memory torch kernels may not read as this dtype.
    const Tensor copy = copied_tensor(info, data, source);
    return fp::detail::TensorAccess::view(abi::share(copy.raw()), nullptr,
                                          "safetensors::MappedFile::get");
  }
  auto* owner = new std::shared_ptr<const Mapping>(mapping);
  // If from_blob throws, libtorch may or may not have run the deleter
  // already; `owner` is then left alone: a leaked reference (the file stays
  // mapped) is safe, a second delete would not be.
  abi::TensorHandle handle = abi::from_blob(const_cast<std::byte*>(data), shape.sizes,
                                            fp::detail::contiguous_strides(shape.sizes), 0,
                                            shape.dtype, Device::cpu(), &release_mapping, owner);
  return fp::detail::TensorAccess::view(std::move(handle), nullptr, "safetensors::MappedFile::get");
}

}  // namespace fp::safetensors::detail
