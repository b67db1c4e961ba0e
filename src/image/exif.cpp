// The orientation a file records, as Pillow's Image.getexif() reads it: the
// EXIF Orientation tag (a TIFF-structured block read without a library: two
// byte orders, one IFD, one entry), or, when the EXIF has no such tag, XMP's
// tiff:Orientation. Anything malformed means "no orientation" (1), as in
// Pillow, which ignores EXIF it cannot parse.
#include <cstring>
#include <string_view>

#include "raster.h"

namespace fp::image::detail {

namespace {

struct TiffReader {
  std::span<const std::uint8_t> bytes;
  bool little;

  bool has(std::size_t offset, std::size_t size) const {
    return offset <= bytes.size() && size <= bytes.size() - offset;
  }
  std::uint32_t u16(std::size_t offset) const {
    const std::uint8_t* p = bytes.data() + offset;
    return little ? p[0] | (p[1] << 8) : (p[0] << 8) | p[1];
  }
  std::uint32_t u32(std::size_t offset) const {
    return little ? u16(offset) | (u16(offset + 2) << 16) : (u16(offset) << 16) | u16(offset + 2);
  }
};

constexpr std::uint32_t orientation_tag = 0x0112;
constexpr std::uint32_t type_byte = 1;
constexpr std::uint32_t type_short = 3;
constexpr std::uint32_t type_long = 4;

/// The Orientation tag's value, or 0 when the block has none (or cannot be read).
std::uint32_t orientation_tag_value(std::span<const std::uint8_t> tiff) {
  if (tiff.size() >= 6 && std::memcmp(tiff.data(), "Exif\0\0", 6) == 0) tiff = tiff.subspan(6);
  if (tiff.size() < 8) return 0;
  TiffReader reader{tiff, tiff[0] == 'I' && tiff[1] == 'I'};
  if (!reader.little && !(tiff[0] == 'M' && tiff[1] == 'M')) return 0;
  if (reader.u16(2) != 42) return 0;
  const std::size_t ifd = reader.u32(4);
  if (!reader.has(ifd, 2)) return 0;
  const std::uint32_t entries = reader.u16(ifd);
  for (std::uint32_t i = 0; i < entries; ++i) {
    const std::size_t entry = ifd + 2 + 12 * static_cast<std::size_t>(i);
    if (!reader.has(entry, 12)) return 0;
    if (reader.u16(entry) != orientation_tag) continue;
    switch (reader.u16(entry + 2)) {
      case type_byte:
        return tiff[entry + 8];
      case type_short:
        return reader.u16(entry + 8);
      case type_long:
        return reader.u32(entry + 8);
      default:
        return 0;
    }
  }
  return 0;
}

/// Pillow's `re.search(r'tiff:Orientation(="|>)([0-9])', xmp)`: the first
/// tiff:Orientation written as an attribute or an element, or 0.
std::uint32_t xmp_orientation(std::string_view xmp) {
  static constexpr std::string_view name = "tiff:Orientation";
  for (std::size_t at = xmp.find(name); at != std::string_view::npos; at = xmp.find(name, at + 1)) {
    std::string_view rest = xmp.substr(at + name.size());
    if (rest.starts_with("=\"")) {
      rest.remove_prefix(2);
    } else if (rest.starts_with(">")) {
      rest.remove_prefix(1);
    } else {
      continue;
    }
    if (!rest.empty() && rest[0] >= '0' && rest[0] <= '9') return rest[0] - '0';
  }
  return 0;
}

}  // namespace

int orientation_of(std::span<const std::uint8_t> exif, std::string_view xmp) {
  std::uint32_t value = orientation_tag_value(exif);
  if (value == 0) value = xmp_orientation(xmp);
  // ImageOps.exif_transpose turns only 2-8; any other value leaves the image.
  return value >= 2 && value <= 8 ? static_cast<int>(value) : 1;
}

int exif_orientation(std::span<const std::uint8_t> tiff) {
  return orientation_of(tiff, {});
}

std::vector<std::uint8_t> raw_profile_bytes(std::string_view text) {
  // Pillow: bytes.fromhex("".join(text.split("\n")[3:])); ImageMagick writes
  // "\nexif\n  <length>\n<hex, 72 digits a line>".
  std::size_t at = 0;
  for (int line = 0; line < 3; ++line) {
    at = text.find('\n', at);
    if (at == std::string_view::npos) return {};
    ++at;
  }
  std::vector<std::uint8_t> bytes;
  int high = -1;
  for (const char c : text.substr(at)) {
    int digit = -1;
    if (c >= '0' && c <= '9') digit = c - '0';
    if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
    if (digit < 0) {
      if (c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f') continue;
      return {};  // Pillow cannot decode it either
    }
    if (high < 0) {
      high = digit;
    } else {
      bytes.push_back(static_cast<std::uint8_t>(high * 16 + digit));
      high = -1;
    }
  }
  return high < 0 ? bytes : std::vector<std::uint8_t>{};
}

}  // namespace fp::image::detail
