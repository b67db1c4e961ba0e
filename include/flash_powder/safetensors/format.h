// The safetensors file format: its dtype names, its header, and the rules a
// file must follow. https://huggingface.co/docs/safetensors
//
//     [8 bytes: N, little-endian u64][N bytes: JSON header][data]
//
// The header maps each tensor name to {"dtype", "shape", "data_offsets"}
// (offsets into the data, which the tensors cover exactly, in order, without
// holes) and may hold "__metadata__", a string-to-string map.
//
// Nothing here needs libtorch: parsing and validation work on plain bytes, so
// the fuzzer and tools can use them alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "flash_powder/abi/error.h"
#include "flash_powder/base/dtype.h"

namespace fp::safetensors {

/// The element type as a safetensors file names it ("F32", "BF16", ...).
/// The order is the reference implementation's: files are written with the
/// tensors sorted by this order, descending (the widest types first, so that
/// every tensor stays aligned), then by name.
enum class FileDType : std::int8_t {
  BOOL,
  F4,       ///< two values per byte; torch.float4_e2m1fn_x2
  F6_E2M3,  ///< no torch dtype
  F6_E3M2,  ///< no torch dtype
  U8,
  I8,
  F8_E5M2,
  F8_E4M3,  ///< torch.float8_e4m3fn
  F8_E8M0,  ///< torch.float8_e8m0fnu
  F8_E4M3FNUZ,
  F8_E5M2FNUZ,
  I16,
  U16,
  F16,
  BF16,
  I32,
  U32,
  F32,
  C64,
  F64,
  I64,
  U64,
};

/// The name in the file, e.g. "F8_E4M3".
std::string_view name(FileDType dtype);
/// The dtype called `text` in a file; nullopt for anything else (names are case-sensitive).
std::optional<FileDType> parse_file_dtype(std::string_view text);
/// Bits per element: 4 for F4, 6 for F6_*, 8 * bytes for the rest.
std::size_t bit_size(FileDType dtype);
/// The torch dtype of a file dtype; nullopt for F6_E2M3 and F6_E3M2, which torch lacks.
std::optional<DType> to_dtype(FileDType dtype);
/// The file dtype of a torch dtype; nullopt for complex32 and complex128, which
/// safetensors lacks.
std::optional<FileDType> to_file_dtype(DType dtype);

/// `__metadata__`: free-form text, sorted by key.
using Metadata = std::map<std::string, std::string>;

/// The largest header the reference implementation accepts (and writes).
inline constexpr std::uint64_t max_header_size = 100'000'000;
/// The size of the length prefix.
inline constexpr std::size_t prefix_size = 8;

/// One tensor as the header describes it.
struct TensorInfo {
  /// Its key.
  std::string name;
  /// Its dtype as the file names it.
  FileDType dtype = FileDType::F32;
  /// The shape in elements as the file records it (for F4, two per byte).
  std::vector<std::int64_t> shape;
  /// [begin, end) in bytes, relative to the start of the data.
  std::uint64_t begin = 0;
  /// One past its last byte.
  std::uint64_t end = 0;

  /// Its size in bytes.
  std::uint64_t byte_size() const { return end - begin; }
  /// Equal when every field is.
  friend bool operator==(const TensorInfo&, const TensorInfo&) = default;
};

/// A parsed and validated header.
struct Header {
  /// In the order the header lists them.
  std::vector<TensorInfo> tensors;
  /// `__metadata__`, when the header has one (it may be empty).
  std::optional<Metadata> metadata;
  /// Where the data starts in the file: 8 + the header length.
  std::uint64_t data_start = 0;

  /// The tensor called `name`, or null.
  const TensorInfo* find(std::string_view name) const;
  /// Equal when every field is.
  friend bool operator==(const Header&, const Header&) = default;
};

/// The header length N from the first 8 bytes of a file of `file_size` bytes.
/// Throws fp::Error when the file is shorter than 8 bytes, or N exceeds
/// `max_header_size` or the rest of the file. `source` names the file in messages.
std::uint64_t header_length(std::span<const std::byte> first_bytes, std::uint64_t file_size,
                            std::string_view source);

/// Parses and validates the JSON header `json` of a file whose data part
/// (after the header) holds `data_size` bytes. Throws fp::Error naming the
/// tensor and the broken rule; see parse() for the rules.
Header parse_header(std::string_view json, std::uint64_t data_size, std::string_view source);

/// Parses and validates a whole file held in memory. The rules, at least as
/// strict as the reference (Rust) implementation's:
///   - the header length is at most 100,000,000 and fits in the file;
///   - the header is UTF-8 JSON: one object, whitespace around it allowed;
///   - no key appears twice in any object;
///   - `__metadata__`, if present, maps strings to strings;
///   - every other entry is an object with "dtype" (a known dtype name),
///     "shape" (non-negative integers) and "data_offsets" (two integers);
///     other fields are ignored, as the reference does;
///   - each tensor's byte size is numel x element size (no overflow, whole bytes);
///   - sorted by offset, the tensors cover the data exactly: no hole, no
///     overlap, nothing past the end, nothing left over.
Header parse(std::span<const std::byte> file, std::string_view source = "bytes");

/// The header bytes (JSON padded with spaces to a multiple of 8) for
/// `tensors` in the given order, with their `begin`/`end` as given, exactly
/// as the reference implementation writes them: `__metadata__` first, then
/// each tensor as {"dtype","shape","data_offsets"}, no whitespace. Throws
/// fp::Error for a name or text that is not UTF-8, a tensor called
/// `__metadata__`, or a header over `max_header_size`.
std::string serialize_header(std::span<const TensorInfo> tensors, const Metadata* metadata);

/// The element count of `shape` times the bits of `dtype`, divided by 8;
/// nullopt when it overflows 64 bits or does not fill whole bytes.
std::optional<std::uint64_t> byte_size(FileDType dtype, std::span<const std::int64_t> shape);

/// True when `text` is well-formed UTF-8 (no overlong forms, no surrogates).
bool is_utf8(std::string_view text);

}  // namespace fp::safetensors
