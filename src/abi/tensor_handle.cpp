#include "flash_powder/abi/tensor_handle.h"

#include <string>
#include <utility>

#include "torch_c.h"

namespace fp::abi {
namespace {

RawTensor checked(RawTensor tensor, const char* what) {
  if (tensor == nullptr)
    throw Error(ErrorCode::BadArgument, std::string(what) + ": the tensor handle is null");
  return tensor;
}

void check_rank(std::span<const std::int64_t> sizes, std::span<const std::int64_t> strides,
                const char* what) {
  if (sizes.size() != strides.size()) {
    throw Error(ErrorCode::BadArgument, std::string(what) + ": " + std::to_string(sizes.size()) +
                                            " sizes but " + std::to_string(strides.size()) +
                                            " strides");
  }
}

}  // namespace

TensorHandle& TensorHandle::operator=(TensorHandle&& other) noexcept {
  if (this != &other) {
    reset();
    raw_ = std::exchange(other.raw_, nullptr);
  }
  return *this;
}

RawTensor TensorHandle::release() noexcept {
  // The handle leaves the count with its owner: it is the caller's to free now.
  if (raw_ != nullptr) count_handle(HandleKind::tensor, -1);
  return std::exchange(raw_, nullptr);
}

void TensorHandle::reset() noexcept {
  // Deleting a valid handle cannot fail; there is nobody to tell if it did.
  if (raw_ != nullptr) aoti_torch_delete_tensor_object(release());
}

TensorHandle TensorHandle::share() const {
  return abi::share(raw_);
}

TensorHandle share(RawTensor tensor) {
  RawTensor shared = nullptr;
  check(aoti_torch_new_tensor_handle(checked(tensor, "share"), &shared), "share");
  return TensorHandle(shared);
}

std::int64_t dim(RawTensor tensor) {
  std::int64_t result = 0;
  check(aoti_torch_get_dim(checked(tensor, "dim"), &result), "dim");
  return result;
}

std::span<const std::int64_t> sizes(RawTensor tensor) {
  std::int64_t* data = nullptr;
  check(aoti_torch_get_sizes(checked(tensor, "sizes"), &data), "sizes");
  return {data, static_cast<std::size_t>(dim(tensor))};
}

std::span<const std::int64_t> strides(RawTensor tensor) {
  std::int64_t* data = nullptr;
  check(aoti_torch_get_strides(checked(tensor, "strides"), &data), "strides");
  return {data, static_cast<std::size_t>(dim(tensor))};
}

std::int64_t numel(RawTensor tensor) {
  std::int64_t result = 0;
  check(aoti_torch_get_numel(checked(tensor, "numel"), &result), "numel");
  return result;
}

std::int64_t storage_offset(RawTensor tensor) {
  std::int64_t result = 0;
  check(aoti_torch_get_storage_offset(checked(tensor, "storage_offset"), &result),
        "storage_offset");
  return result;
}

DType dtype(RawTensor tensor) {
  std::int32_t code = 0;
  check(aoti_torch_get_dtype(checked(tensor, "dtype"), &code), "dtype");
  return dtype_from_code(code);
}

Device device(RawTensor tensor) {
  std::int32_t type = 0;
  std::int32_t index = 0;
  check(aoti_torch_get_device_type(checked(tensor, "device"), &type), "device");
  check(aoti_torch_get_device_index(tensor, &index), "device");
  return {device_type_from_code(type), static_cast<std::int8_t>(index)};
}

Layout layout(RawTensor tensor) {
  std::int32_t code = 0;
  check(aoti_torch_get_layout(checked(tensor, "layout"), &code), "layout");
  return layout_from_code(code);
}

bool is_contiguous(RawTensor tensor) {
  bool result = false;
  check(aoti_torch_is_contiguous(checked(tensor, "is_contiguous"), &result), "is_contiguous");
  return result;
}

bool is_defined(RawTensor tensor) {
  bool result = false;
  check(aoti_torch_is_defined(checked(tensor, "is_defined"), &result), "is_defined");
  return result;
}

const void* const_data_ptr(RawTensor tensor) {
  const void* data = nullptr;
  check(torch_get_const_data_ptr(checked(tensor, "const_data_ptr"), &data), "const_data_ptr");
  return data;
}

const void* data_start(RawTensor tensor) noexcept {
  try {
    if (tensor == nullptr || !is_defined(tensor) || layout(tensor) != Layout::Strided) {
      return nullptr;
    }
    return const_data_ptr(tensor);
  } catch (const Error&) {
    return nullptr;  // "cannot tell" is the answer for any failure here
  }
}

void* mutable_data_ptr(RawTensor tensor) {
  void* data = nullptr;
  check(torch_get_mutable_data_ptr(checked(tensor, "mutable_data_ptr"), &data), "mutable_data_ptr");
  return data;
}

TensorHandle empty_strided(std::span<const std::int64_t> sizes,
                           std::span<const std::int64_t> strides, DType dtype, Device device) {
  check_rank(sizes, strides, "empty_strided");
  RawTensor result = nullptr;
  check(aoti_torch_empty_strided(static_cast<std::int64_t>(sizes.size()), sizes.data(),
                                 strides.data(), to_code(dtype), to_code(device.type), device.index,
                                 &result),
        "empty_strided");
  return TensorHandle(result);
}

TensorHandle from_blob(void* data, std::span<const std::int64_t> sizes,
                       std::span<const std::int64_t> strides, std::int64_t storage_offset,
                       DType dtype, Device device, void (*deleter)(void*, void*), void* context) {
  check_rank(sizes, strides, "from_blob");
  RawTensor result = nullptr;
  check(torch_from_blob(data, static_cast<std::int64_t>(sizes.size()), sizes.data(), strides.data(),
                        storage_offset, to_code(dtype), to_code(device.type), device.index, &result,
                        aoti_torch_layout_strided(), nullptr, 0, deleter, context),
        "from_blob");
  return TensorHandle(result);
}

void copy_(RawTensor dst, RawTensor src) {
  check(aoti_torch_copy_(checked(dst, "copy_"), checked(src, "copy_"), /*non_blocking=*/0),
        "copy_");
}

TensorHandle subtract(RawTensor a, RawTensor b, double alpha, const char* what) {
  RawTensor result = nullptr;
  check(aoti_torch_aten_subtract_Tensor(checked(a, what), checked(b, what), alpha, &result), what);
  return TensorHandle(result);
}

}  // namespace fp::abi
