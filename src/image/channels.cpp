// Channel conversions done the way Pillow's Image.convert does them, so that
// every read mode gives Pillow's pixels.
#include <cstring>

#include "raster.h"

namespace fp::image::detail {

namespace {

/// Pillow's L24: ITU-R 601-2 luma in 16-bit fixed point, rounded.
inline std::uint8_t luma(const std::uint8_t* rgb) {
  return static_cast<std::uint8_t>((rgb[0] * 19595u + rgb[1] * 38470u + rgb[2] * 7471u + 0x8000u) >>
                                   16);
}

/// One pixel from `from` channels to `to` channels.
inline void convert_pixel(const std::uint8_t* in, int from, std::uint8_t* out, int to) {
  const bool in_alpha = from == 2 || from == 4;
  const std::uint8_t alpha = in_alpha ? in[from - 1] : 255;
  std::uint8_t gray;
  if (from <= 2) {
    gray = in[0];
  } else {
    gray = to <= 2 ? luma(in) : 0;
  }
  switch (to) {
    case 1:
      out[0] = gray;
      break;
    case 2:
      out[0] = gray;
      out[1] = alpha;
      break;
    default:
      if (from <= 2) {
        out[0] = out[1] = out[2] = in[0];
      } else {
        out[0] = in[0];
        out[1] = in[1];
        out[2] = in[2];
      }
      if (to == 4) out[3] = alpha;
  }
}

}  // namespace

int channels_for(ImageReadMode mode, int file_channels) {
  switch (mode) {
    case ImageReadMode::Gray:
      return 1;
    case ImageReadMode::GrayAlpha:
      return 2;
    case ImageReadMode::RGB:
      return 3;
    case ImageReadMode::RGBA:
      return 4;
    case ImageReadMode::Unchanged:
      break;
  }
  return file_channels;
}

void convert_channels(Raster& raster, int channels) {
  if (raster.channels == channels) return;
  const std::size_t count = raster.pixel_count();
  const int from = raster.channels;
  Bytes out(count * channels);
  const std::uint8_t* in = raster.pixels.data();
  if (from == 4 && channels == 3) {  // the common case, RGBA codecs read as RGB: no branches
    std::uint8_t* o = out.data();
    for (std::size_t i = 0; i < count; ++i, o += 3, in += 4)
      std::memcpy(o, in, 3);
    raster.pixels = std::move(out);
    raster.channels = channels;
    return;
  }
  for (std::size_t i = 0; i < count; ++i) {
    convert_pixel(in + i * from, from, out.data() + i * channels, channels);
  }
  raster.pixels = std::move(out);
  raster.channels = channels;
}

void reduce_to_8_bits(Raster& raster) {
  if (raster.bits == 8) return;
  const std::size_t count = raster.pixels.size() / 2;
  for (std::size_t i = 0; i < count; ++i) {
    std::uint16_t sample;
    std::memcpy(&sample, raster.pixels.data() + 2 * i, 2);
    raster.pixels[i] = static_cast<std::uint8_t>(sample >> 8);
  }
  raster.pixels.resize(count);
  raster.bits = 8;
}

}  // namespace fp::image::detail
