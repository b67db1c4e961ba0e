// fp::DType: the element types of a tensor, one per torch.dtype.
//
// A vocabulary header: it depends on nothing, so every layer (abi included) may
// use it, the way torch/headeronly/core/ScalarType.h serves libtorch.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string_view>

namespace fp {

/// The dtype of a tensor. Python: `torch.dtype`.
/// https://pytorch.org/docs/stable/tensor_attributes.html#torch-dtype
enum class DType : std::int8_t {
  Bool,          ///< torch.bool
  U8,            ///< torch.uint8
  U16,           ///< torch.uint16
  U32,           ///< torch.uint32
  U64,           ///< torch.uint64
  I8,            ///< torch.int8
  I16,           ///< torch.int16
  I32,           ///< torch.int32
  I64,           ///< torch.int64
  F16,           ///< torch.float16
  BF16,          ///< torch.bfloat16
  F32,           ///< torch.float32
  F64,           ///< torch.float64
  C32,           ///< torch.complex32 (two float16)
  C64,           ///< torch.complex64
  C128,          ///< torch.complex128
  F8_E4M3FN,     ///< torch.float8_e4m3fn
  F8_E5M2,       ///< torch.float8_e5m2
  F8_E4M3FNUZ,   ///< torch.float8_e4m3fnuz
  F8_E5M2FNUZ,   ///< torch.float8_e5m2fnuz
  F8_E8M0FNU,    ///< torch.float8_e8m0fnu (needs torch 2.11)
  F4_E2M1FN_X2,  ///< torch.float4_e2m1fn_x2, two 4-bit values per byte (needs torch 2.11)
};

/// Every DType, in enumeration order.
inline constexpr std::array<DType, 22> all_dtypes = {
    DType::Bool,       DType::U8,          DType::U16,     DType::U32,         DType::U64,
    DType::I8,         DType::I16,         DType::I32,     DType::I64,         DType::F16,
    DType::BF16,       DType::F32,         DType::F64,     DType::C32,         DType::C64,
    DType::C128,       DType::F8_E4M3FN,   DType::F8_E5M2, DType::F8_E4M3FNUZ, DType::F8_E5M2FNUZ,
    DType::F8_E8M0FNU, DType::F4_E2M1FN_X2};

/// The name torch uses after `torch.`, e.g. "float32". Python: `str(dtype)[6:]`.
constexpr std::string_view name(DType dtype) {
  constexpr std::array<std::string_view, all_dtypes.size()> names = {
      "bool",           "uint8",           "uint16",      "uint32",          "uint64",
      "int8",           "int16",           "int32",       "int64",           "float16",
      "bfloat16",       "float32",         "float64",     "complex32",       "complex64",
      "complex128",     "float8_e4m3fn",   "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
      "float8_e8m0fnu", "float4_e2m1fn_x2"};
  return names[static_cast<std::size_t>(dtype)];
}

/// libtorch's own name of the dtype (c10::ScalarType), as its messages spell
/// it: "Float", "Long", "ComplexDouble".
constexpr std::string_view scalar_type_name(DType dtype) {
  constexpr std::array<std::string_view, all_dtypes.size()> names = {"Bool",
                                                                     "Byte",
                                                                     "UInt16",
                                                                     "UInt32",
                                                                     "UInt64",
                                                                     "Char",
                                                                     "Short",
                                                                     "Int",
                                                                     "Long",
                                                                     "Half",
                                                                     "BFloat16",
                                                                     "Float",
                                                                     "Double",
                                                                     "ComplexHalf",
                                                                     "ComplexFloat",
                                                                     "ComplexDouble",
                                                                     "Float8_e4m3fn",
                                                                     "Float8_e5m2",
                                                                     "Float8_e4m3fnuz",
                                                                     "Float8_e5m2fnuz",
                                                                     "Float8_e8m0fnu",
                                                                     "Float4_e2m1fn_x2"};
  return names[static_cast<std::size_t>(dtype)];
}

/// Bytes per element. Python: `dtype.itemsize`.
constexpr std::size_t element_size(DType dtype) {
  switch (dtype) {
    case DType::Bool:
    case DType::U8:
    case DType::I8:
    case DType::F8_E4M3FN:
    case DType::F8_E5M2:
    case DType::F8_E4M3FNUZ:
    case DType::F8_E5M2FNUZ:
    case DType::F8_E8M0FNU:
    case DType::F4_E2M1FN_X2:
      return 1;
    case DType::U16:
    case DType::I16:
    case DType::F16:
    case DType::BF16:
      return 2;
    case DType::U32:
    case DType::I32:
    case DType::F32:
    case DType::C32:
      return 4;
    case DType::U64:
    case DType::I64:
    case DType::F64:
    case DType::C64:
      return 8;
    case DType::C128:
      return 16;
  }
  return 0;
}

/// Python: `dtype.is_floating_point` (the float8 and float4 types count).
constexpr bool is_floating_point(DType dtype) {
  switch (dtype) {
    case DType::F16:
    case DType::BF16:
    case DType::F32:
    case DType::F64:
    case DType::F8_E4M3FN:
    case DType::F8_E5M2:
    case DType::F8_E4M3FNUZ:
    case DType::F8_E5M2FNUZ:
    case DType::F8_E8M0FNU:
    case DType::F4_E2M1FN_X2:
      return true;
    default:
      return false;
  }
}

/// Python: `dtype.is_complex`.
constexpr bool is_complex(DType dtype) {
  return dtype == DType::C32 || dtype == DType::C64 || dtype == DType::C128;
}

/// True for the integer dtypes; bool counts only when `include_bool`.
/// Python: `not dtype.is_floating_point and not dtype.is_complex`.
constexpr bool is_integral(DType dtype, bool include_bool = false) {
  if (dtype == DType::Bool) return include_bool;
  return !is_floating_point(dtype) && !is_complex(dtype);
}

/// Python: `dtype.is_signed`.
constexpr bool is_signed(DType dtype) {
  switch (dtype) {
    case DType::Bool:
    case DType::U8:
    case DType::U16:
    case DType::U32:
    case DType::U64:
    case DType::F8_E8M0FNU:
      return false;
    default:
      return true;
  }
}

/// Prints like Python's `str(dtype)`: "torch.float32".
std::ostream& operator<<(std::ostream& out, DType dtype);

}  // namespace fp
