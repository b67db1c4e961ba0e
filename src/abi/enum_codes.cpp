// Translates flash_powder's enums to the int32 codes of the loaded libtorch.
#include <array>
#include <string>

#include "flash_powder/abi/enum_codes.h"
#include "torch_c.h"

namespace fp::abi {
namespace {

template <class Enum, std::size_t N>
std::int32_t lookup_code(const std::array<std::int32_t, N>& codes, Enum value, const char* what) {
  const auto index = static_cast<std::size_t>(value);
  if (index >= N)
    throw Error(ErrorCode::BadArgument,
                std::string("fp: invalid ") + what + " value " + std::to_string(index));
  return codes[index];
}

template <class Enum, std::size_t N>
Enum lookup_enum(const std::array<std::int32_t, N>& codes, std::int32_t code, const char* what) {
  for (std::size_t i = 0; i < N; ++i) {
    if (codes[i] == code) return static_cast<Enum>(i);
  }
  throw Error(ErrorCode::Unsupported, std::string("fp: libtorch returned a ") + what + " (code " +
                                          std::to_string(code) +
                                          ") that flash_powder does not know");
}

// Each array is indexed by the enum's value, in the enum's order.
const std::array<std::int32_t, all_dtypes.size()>& dtype_codes() {
  static const std::array<std::int32_t, all_dtypes.size()> codes = {
      aoti_torch_dtype_bool(),
      aoti_torch_dtype_uint8(),
      aoti_torch_dtype_uint16(),
      aoti_torch_dtype_uint32(),
      aoti_torch_dtype_uint64(),
      aoti_torch_dtype_int8(),
      aoti_torch_dtype_int16(),
      aoti_torch_dtype_int32(),
      aoti_torch_dtype_int64(),
      aoti_torch_dtype_float16(),
      aoti_torch_dtype_bfloat16(),
      aoti_torch_dtype_float32(),
      aoti_torch_dtype_float64(),
      aoti_torch_dtype_complex32(),
      aoti_torch_dtype_complex64(),
      aoti_torch_dtype_complex128(),
      aoti_torch_dtype_float8_e4m3fn(),
      aoti_torch_dtype_float8_e5m2(),
      aoti_torch_dtype_float8_e4m3fnuz(),
      aoti_torch_dtype_float8_e5m2fnuz(),
      torch_dtype_float8_e8m0fnu(),
      torch_dtype_float4_e2m1fn_x2()};
  return codes;
}

const std::array<std::int32_t, 6>& device_type_codes() {
  static const std::array<std::int32_t, 6> codes = {
      aoti_torch_device_type_cpu(),  aoti_torch_device_type_cuda(),
      aoti_torch_device_type_meta(), aoti_torch_device_type_xpu(),
      aoti_torch_device_type_mps(),  aoti_torch_device_type_privateuse1()};
  return codes;
}

const std::array<std::int32_t, 8>& layout_codes() {
  static const std::array<std::int32_t, 8> codes = {
      aoti_torch_layout_strided(),    aoti_torch_layout_sparse_coo(),
      aoti_torch_layout_sparse_csr(), aoti_torch_layout_sparse_csc(),
      aoti_torch_layout_sparse_bsr(), aoti_torch_layout_sparse_bsc(),
      aoti_torch_layout__mkldnn(),    aoti_torch_layout_jagged()};
  return codes;
}

const std::array<std::int32_t, 4>& memory_format_codes() {
  static const std::array<std::int32_t, 4> codes = {
      aoti_torch_memory_format_contiguous_format(), aoti_torch_memory_format_preserve_format(),
      aoti_torch_memory_format_channels_last(), aoti_torch_memory_format_channels_last_3d()};
  return codes;
}

}  // namespace

std::int32_t to_code(DType dtype) {
  return lookup_code(dtype_codes(), dtype, "DType");
}
DType dtype_from_code(std::int32_t code) {
  return lookup_enum<DType>(dtype_codes(), code, "dtype");
}

std::int32_t to_code(DeviceType type) {
  return lookup_code(device_type_codes(), type, "DeviceType");
}
DeviceType device_type_from_code(std::int32_t code) {
  return lookup_enum<DeviceType>(device_type_codes(), code, "device type");
}

std::int32_t to_code(Layout layout) {
  return lookup_code(layout_codes(), layout, "Layout");
}
Layout layout_from_code(std::int32_t code) {
  return lookup_enum<Layout>(layout_codes(), code, "layout");
}

std::int32_t to_code(MemoryFormat format) {
  return lookup_code(memory_format_codes(), format, "MemoryFormat");
}
MemoryFormat memory_format_from_code(std::int32_t code) {
  return lookup_enum<MemoryFormat>(memory_format_codes(), code, "memory format");
}

}  // namespace fp::abi
