// The EXIF orientation tag, read from a TIFF-structured block without a
// library: two byte orders, one IFD, one SHORT. Anything malformed means "no
// orientation" (1), as in Pillow, which ignores EXIF it cannot parse.
#include <cstring>

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
constexpr std::uint32_t type_short = 3;

}  // namespace

int exif_orientation(std::span<const std::uint8_t> tiff) {
  if (tiff.size() >= 6 && std::memcmp(tiff.data(), "Exif\0\0", 6) == 0) tiff = tiff.subspan(6);
  if (tiff.size() < 8) return 1;
  TiffReader reader{tiff, tiff[0] == 'I' && tiff[1] == 'I'};
  if (!reader.little && !(tiff[0] == 'M' && tiff[1] == 'M')) return 1;
  if (reader.u16(2) != 42) return 1;
  const std::size_t ifd = reader.u32(4);
  if (!reader.has(ifd, 2)) return 1;
  const std::uint32_t entries = reader.u16(ifd);
  for (std::uint32_t i = 0; i < entries; ++i) {
    const std::size_t entry = ifd + 2 + 12 * static_cast<std::size_t>(i);
    if (!reader.has(entry, 12)) return 1;
    if (reader.u16(entry) != orientation_tag) continue;
    if (reader.u16(entry + 2) != type_short) return 1;
    const std::uint32_t value = reader.u16(entry + 8);
    return value >= 1 && value <= 8 ? static_cast<int>(value) : 1;
  }
  return 1;
}

}  // namespace fp::image::detail
