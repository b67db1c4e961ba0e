// The safetensors format without tensors: dtype names, the length prefix,
// the validation of offsets and sizes, and writing a header.
#include "flash_powder/safetensors/format.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <numeric>
#include <utility>

#include <nlohmann/json.hpp>

#include "header_parser.h"
#include "messages.h"

namespace fp::safetensors {

static_assert(std::endian::native == std::endian::little,
              "safetensors files are little-endian; big-endian machines would need byte swaps");

namespace {

struct DTypeRow {
  FileDType file;
  std::string_view name;
  std::size_t bits;
  std::optional<DType> torch;
};

// One row per FileDType, in enum order.
constexpr std::array<DTypeRow, 22> dtype_table = {{
    {FileDType::BOOL, "BOOL", 8, DType::Bool},
    {FileDType::F4, "F4", 4, DType::F4_E2M1FN_X2},
    {FileDType::F6_E2M3, "F6_E2M3", 6, std::nullopt},
    {FileDType::F6_E3M2, "F6_E3M2", 6, std::nullopt},
    {FileDType::U8, "U8", 8, DType::U8},
    {FileDType::I8, "I8", 8, DType::I8},
    {FileDType::F8_E5M2, "F8_E5M2", 8, DType::F8_E5M2},
    {FileDType::F8_E4M3, "F8_E4M3", 8, DType::F8_E4M3FN},
    {FileDType::F8_E8M0, "F8_E8M0", 8, DType::F8_E8M0FNU},
    {FileDType::F8_E4M3FNUZ, "F8_E4M3FNUZ", 8, DType::F8_E4M3FNUZ},
    {FileDType::F8_E5M2FNUZ, "F8_E5M2FNUZ", 8, DType::F8_E5M2FNUZ},
    {FileDType::I16, "I16", 16, DType::I16},
    {FileDType::U16, "U16", 16, DType::U16},
    {FileDType::F16, "F16", 16, DType::F16},
    {FileDType::BF16, "BF16", 16, DType::BF16},
    {FileDType::I32, "I32", 32, DType::I32},
    {FileDType::U32, "U32", 32, DType::U32},
    {FileDType::F32, "F32", 32, DType::F32},
    {FileDType::C64, "C64", 64, DType::C64},
    {FileDType::F64, "F64", 64, DType::F64},
    {FileDType::I64, "I64", 64, DType::I64},
    {FileDType::U64, "U64", 64, DType::U64},
}};

const DTypeRow& row(FileDType dtype) {
  return dtype_table[static_cast<std::size_t>(dtype)];
}

[[noreturn]] void fail(std::string_view source, const std::string& message) {
  throw Error(ErrorCode::Format, detail::message_prefix(source) + message);
}

[[noreturn]] void fail_tensor(std::string_view source, const TensorInfo& tensor,
                              const std::string& message) {
  fail(source, "tensor " + detail::in_quotes(tensor.name) + ": " + message);
}

std::string offsets_text(const TensorInfo& tensor) {
  return "[" + std::to_string(tensor.begin) + ", " + std::to_string(tensor.end) + "]";
}

/// The rules each tensor meets alone: ordered offsets inside the data, and a
/// byte size that matches its shape and dtype.
void check_tensor(const TensorInfo& tensor, std::uint64_t data_size, std::string_view source) {
  if (tensor.end < tensor.begin) {
    fail_tensor(source, tensor, "data_offsets " + offsets_text(tensor) + " end before they begin");
  }
  if (tensor.end > data_size) {
    fail_tensor(source, tensor,
                "data_offsets " + offsets_text(tensor) + " reach past the end of the data (" +
                    std::to_string(data_size) + " bytes)");
  }
  const std::string what =
      "shape " + detail::shape_text(tensor.shape) + " of " + std::string(name(tensor.dtype));
  const std::uint64_t bits_per_element = bit_size(tensor.dtype);
  std::uint64_t count = 1;
  for (const std::int64_t size : tensor.shape) {
    if (__builtin_mul_overflow(count, static_cast<std::uint64_t>(size), &count)) {
      fail_tensor(source, tensor, what + ": the element count overflows 64 bits");
    }
  }
  std::uint64_t bits = 0;
  if (__builtin_mul_overflow(count, bits_per_element, &bits)) {
    fail_tensor(source, tensor, what + ": the byte size overflows 64 bits");
  }
  if (bits % 8 != 0) {
    fail_tensor(source, tensor,
                what + " does not fill whole bytes (" + std::to_string(bits) + " bits)");
  }
  if (bits / 8 != tensor.byte_size()) {
    fail_tensor(source, tensor,
                what + " needs " + std::to_string(bits / 8) + " bytes but data_offsets " +
                    offsets_text(tensor) + " hold " + std::to_string(tensor.byte_size()));
  }
}

/// The rules the tensors meet together: sorted by offset they cover the
/// data from its first byte to its last, each starting where the previous ends.
void check_coverage(const std::vector<TensorInfo>& tensors, std::uint64_t data_size,
                    std::string_view source) {
  std::vector<std::size_t> order(tensors.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::pair(tensors[a].begin, tensors[a].end) <
           std::pair(tensors[b].begin, tensors[b].end);
  });
  std::uint64_t covered = 0;
  const TensorInfo* previous = nullptr;
  for (const std::size_t index : order) {
    const TensorInfo& tensor = tensors[index];
    const std::string after = previous ? "tensor " + detail::in_quotes(previous->name) +
                                             " ends at byte " + std::to_string(covered)
                                       : "the data starts at byte 0";
    if (tensor.begin > covered) {
      fail_tensor(source, tensor,
                  "starts at byte " + std::to_string(tensor.begin) + " but " + after +
                      ": a hole in the data");
    }
    if (tensor.begin < covered) {
      fail_tensor(source, tensor,
                  "starts at byte " + std::to_string(tensor.begin) + " but " + after +
                      ": the tensors overlap");
    }
    covered = tensor.end;
    previous = &tensor;
  }
  if (covered != data_size) {
    fail(source, "the tensors cover " + std::to_string(covered) +
                     " bytes of data but the file has " + std::to_string(data_size) +
                     ": bytes left over at the end");
  }
}

/// Rejects what nlohmann's parser would forgive but JSON (and the reference
/// implementation) does not: a NUL byte, which nlohmann takes for the end of
/// the input (so `{}\0junk` would pass), and anything before the opening
/// '{' but whitespace (a byte-order mark, which nlohmann skips).
void check_framing(std::string_view json, std::string_view source) {
  const auto nul = json.find('\0');
  if (nul != std::string_view::npos) {
    fail(source, "the header holds a NUL byte at offset " + std::to_string(nul) +
                     ", which JSON does not allow");
  }
  const auto first = json.find_first_not_of(" \t\n\r");
  if (first == std::string_view::npos || json[first] != '{') {
    fail(source, "the header is not a JSON object (it must start with '{' after whitespace)");
  }
}

std::string json_string(std::string_view text) {
  return nlohmann::json(std::string(text))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
}

void append_tensor(std::string& out, const TensorInfo& tensor) {
  out += json_string(tensor.name);
  out += ":{\"dtype\":\"";
  out += name(tensor.dtype);
  out += "\",\"shape\":[";
  for (std::size_t d = 0; d < tensor.shape.size(); ++d) {
    if (d > 0) out += ',';
    out += std::to_string(tensor.shape[d]);
  }
  out += "],\"data_offsets\":[" + std::to_string(tensor.begin) + "," + std::to_string(tensor.end) +
         "]}";
}

void append_metadata(std::string& out, const Metadata& metadata) {
  out += "\"__metadata__\":{";
  bool first = true;
  for (const auto& [key, value] : metadata) {
    if (!first) out += ',';
    first = false;
    out += json_string(key) + ":" + json_string(value);
  }
  out += '}';
}

void check_serializable(std::span<const TensorInfo> tensors, const Metadata* metadata) {
  const std::string_view source = "save";
  for (const TensorInfo& tensor : tensors) {
    if (!is_utf8(tensor.name)) fail_tensor(source, tensor, "the name is not valid UTF-8");
    if (tensor.name == "__metadata__") {
      fail_tensor(source, tensor, "the name is reserved for the file's metadata");
    }
  }
  if (metadata == nullptr) return;
  for (const auto& [key, value] : *metadata) {
    if (!is_utf8(key) || !is_utf8(value)) {
      fail(source, "metadata " + detail::in_quotes(key) + ": the text is not valid UTF-8");
    }
  }
}

}  // namespace

std::string_view name(FileDType dtype) {
  return row(dtype).name;
}

std::optional<FileDType> parse_file_dtype(std::string_view text) {
  for (const DTypeRow& candidate : dtype_table) {
    if (candidate.name == text) return candidate.file;
  }
  return std::nullopt;
}

std::size_t bit_size(FileDType dtype) {
  return row(dtype).bits;
}

std::optional<DType> to_dtype(FileDType dtype) {
  return row(dtype).torch;
}

std::optional<FileDType> to_file_dtype(DType dtype) {
  for (const DTypeRow& candidate : dtype_table) {
    if (candidate.torch == dtype) return candidate.file;
  }
  return std::nullopt;
}

const TensorInfo* Header::find(std::string_view wanted) const {
  for (const TensorInfo& tensor : tensors) {
    if (tensor.name == wanted) return &tensor;
  }
  return nullptr;
}

std::optional<std::uint64_t> byte_size(FileDType dtype, std::span<const std::int64_t> shape) {
  std::uint64_t count = 1;
  for (const std::int64_t size : shape) {
    if (size < 0 || __builtin_mul_overflow(count, static_cast<std::uint64_t>(size), &count)) {
      return std::nullopt;
    }
  }
  std::uint64_t bits = 0;
  if (__builtin_mul_overflow(count, std::uint64_t{bit_size(dtype)}, &bits) || bits % 8 != 0) {
    return std::nullopt;
  }
  return bits / 8;
}

std::uint64_t header_length(std::span<const std::byte> first_bytes, std::uint64_t file_size,
                            std::string_view source) {
  if (file_size < prefix_size || first_bytes.size() < prefix_size) {
    fail(source, "the file has " + std::to_string(file_size) +
                     " bytes, too few for the 8-byte header length");
  }
  std::uint64_t length = 0;
  std::memcpy(&length, first_bytes.data(), prefix_size);  // little-endian, as the machine
  if (length > max_header_size) {
    fail(source, "the header length " + std::to_string(length) + " exceeds the limit of " +
                     std::to_string(max_header_size) + " bytes");
  }
  if (length > file_size - prefix_size) {
    fail(source, "the header length " + std::to_string(length) + " exceeds the " +
                     std::to_string(file_size - prefix_size) + " bytes that follow it in the file");
  }
  return length;
}

Header parse_header(std::string_view json, std::uint64_t data_size, std::string_view source) {
  if (!is_utf8(json)) fail(source, "the header is not valid UTF-8");
  check_framing(json, source);
  Header header = detail::parse_header_json(json, source);
  for (const TensorInfo& tensor : header.tensors)
    check_tensor(tensor, data_size, source);
  check_coverage(header.tensors, data_size, source);
  header.data_start = prefix_size + json.size();
  return header;
}

Header parse(std::span<const std::byte> file, std::string_view source) {
  const std::uint64_t length = header_length(file, file.size(), source);
  const std::string_view json(reinterpret_cast<const char*>(file.data()) + prefix_size, length);
  return parse_header(json, file.size() - prefix_size - length, source);
}

std::string serialize_header(std::span<const TensorInfo> tensors, const Metadata* metadata) {
  check_serializable(tensors, metadata);
  std::string out = "{";
  if (metadata != nullptr) append_metadata(out, *metadata);
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (i > 0 || metadata != nullptr) out += ',';
    append_tensor(out, tensors[i]);
  }
  out += '}';
  out.resize((out.size() + prefix_size - 1) / prefix_size * prefix_size, ' ');
  if (out.size() > max_header_size) {
    fail("save", "the header would take " + std::to_string(out.size()) +
                     " bytes, over the limit of " + std::to_string(max_header_size));
  }
  return out;
}

bool is_utf8(std::string_view text) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t size = text.size();
  std::size_t i = 0;
  while (i < size) {
    const unsigned char lead = bytes[i];
    if (lead < 0x80) {
      ++i;
      continue;
    }
    // The ranges of RFC 3629, table 3-7 of the Unicode standard: they exclude
    // overlong forms, surrogates and code points past U+10FFFF.
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0) low = 0xA0;
      if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0) low = 0x90;
      if (lead == 0xF4) high = 0x8F;
    } else {
      return false;
    }
    if (size - i < length) return false;
    if (bytes[i + 1] < low || bytes[i + 1] > high) return false;
    for (std::size_t k = 2; k < length; ++k) {
      if (bytes[i + k] < 0x80 || bytes[i + k] > 0xBF) return false;
    }
    i += length;
  }
  return true;
}

}  // namespace fp::safetensors
