// PNG decoding with libspng: no setjmp, errors are return codes, so a corrupt
// file unwinds like any C++ error. 8-bit output matches libpng, Pillow and
// torchvision pixel for pixel; 16-bit samples come out in host order.
#include <spng.h>

#include <memory>

#include "messages.h"
#include "raster.h"
#include "shuffle.h"

namespace fp::image::detail {

namespace {

struct ContextDeleter {
  void operator()(spng_ctx* context) const { spng_ctx_free(context); }
};
using Context = std::unique_ptr<spng_ctx, ContextDeleter>;

void check(int code, const std::string& source, const char* what) {
  if (code != 0) {
    fail("decode_png", source, std::string(what) + ": " + spng_strerror(code));
  }
}

int file_channels(const spng_ihdr& ihdr, bool has_trns) {
  switch (ihdr.color_type) {
    case SPNG_COLOR_TYPE_GRAYSCALE:
      return 1;
    case SPNG_COLOR_TYPE_GRAYSCALE_ALPHA:
      return 2;
    case SPNG_COLOR_TYPE_INDEXED:
      return has_trns ? 4 : 3;
    case SPNG_COLOR_TYPE_TRUECOLOR_ALPHA:
      return 4;
    default:
      return 3;
  }
}

/// The libspng output format and its channel count.
struct Output {
  int format;
  int channels;
};

/// True when the file's own 8-bit layout is what is wanted: libspng then
/// copies rows instead of converting pixel by pixel.
bool stored_as(const spng_ihdr& ihdr, int channels) {
  if (ihdr.bit_depth != 8) return false;
  return (channels == 3 && ihdr.color_type == SPNG_COLOR_TYPE_TRUECOLOR) ||
         (channels == 4 && ihdr.color_type == SPNG_COLOR_TYPE_TRUECOLOR_ALPHA);
}

/// Unchanged: the file's channels (a palette expanded, its tRNS kept as alpha).
Output unchanged_output(const spng_ihdr& ihdr, int native) {
  // 16-bit samples and 8-bit gray+alpha as stored (host-endian), no conversion.
  if (ihdr.bit_depth == 16 || ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE_ALPHA) {
    return {SPNG_FMT_PNG, native};
  }
  if (native == 1) return {SPNG_FMT_G8, 1};  // 1, 2 and 4-bit gray scaled like libpng
  if (stored_as(ihdr, native)) return {SPNG_FMT_PNG, native};
  return native == 4 ? Output{SPNG_FMT_RGBA8, 4} : Output{SPNG_FMT_RGB8, 3};
}

/// Another mode: 8-bit gray, RGB or RGBA (tRNS applied), converted afterwards.
Output converted_output(const spng_ihdr& ihdr, int wanted) {
  if (wanted == 1 && ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE && ihdr.bit_depth <= 8) {
    return {SPNG_FMT_G8, 1};
  }
  if (wanted == 3 && stored_as(ihdr, 3)) return {SPNG_FMT_PNG, 3};
  if (wanted == 1 || wanted == 3) return {SPNG_FMT_RGB8, 3};
  return {SPNG_FMT_RGBA8, 4};
}

/// Pillow makes an RGB PNG's tRNS-transparent pixels gray = R (not the
/// luma) when it converts to gray+alpha; as in Pillow. On RGBA samples.
void pillow_transparent_gray(Raster& raster) {
  std::uint8_t* p = raster.pixels.data();
  const auto count = static_cast<std::size_t>(raster.width * raster.height);
  for (std::size_t i = 0; i < count; ++i) {
    std::uint8_t* pixel = p + 4 * i;
    if (pixel[3] == 0) pixel[1] = pixel[2] = pixel[0];
  }
}

/// An 8-bit RGB, non-interlaced PNG wanted as RGB: decoded a row at a time,
/// each row scattered into the sink's planes while it is in cache (no
/// full-size interleaved buffer, no second pass).
void decode_rows_planar(spng_ctx* context, int format, Raster& raster, PlaneSink& sink,
                        const std::string& source) {
  check(spng_decode_image(context, nullptr, 0, format, SPNG_DECODE_PROGRESSIVE), source,
        "corrupt PNG");
  const auto width = static_cast<std::size_t>(raster.width);
  const auto plane = width * static_cast<std::size_t>(raster.height);
  Bytes row(raster.row_bytes());
  std::uint8_t* planes = sink.allocate(3, raster.height, raster.width);
  raster.planar = raster.in_sink = true;
  int code = 0;
  do {
    spng_row_info info{};
    code = spng_get_row_info(context, &info);
    if (code != 0) break;
    code = spng_decode_row(context, row.data(), row.size());
    if (code != 0 && code != SPNG_EOI) break;
    std::uint8_t* r = planes + static_cast<std::size_t>(info.row_num) * width;
    deinterleave3(row.data(), r, r + plane, r + 2 * plane, width);
  } while (code == 0);
  if (code != SPNG_EOI) check(code, source, "corrupt PNG");
}

int orientation_of(spng_ctx* context) {
  spng_exif exif{};
  if (spng_get_exif(context, &exif) != 0 || exif.data == nullptr) return 1;
  return exif_orientation({reinterpret_cast<const std::uint8_t*>(exif.data), exif.length});
}

}  // namespace

Raster decode_png_bytes(std::span<const std::uint8_t> bytes, const DecodeOptions& options,
                        const std::string& source, PlaneSink* sink) {
  if (bytes.empty()) fail("decode_png", source, "the data is empty");
  Context context(spng_ctx_new(0));
  if (!context) fail("decode_png", source, "out of memory");
  // Above libspng's own chunk limits a file is refused, not partly read.
  spng_set_crc_action(context.get(), SPNG_CRC_ERROR, SPNG_CRC_ERROR);
  spng_set_chunk_limits(context.get(), 1u << 26, 1u << 26);
  check(spng_set_png_buffer(context.get(), bytes.data(), bytes.size()), source, "not a PNG");
  spng_ihdr ihdr{};
  check(spng_get_ihdr(context.get(), &ihdr), source, "not a readable PNG");
  check_dimensions("decode_png", source, ihdr.width, ihdr.height, options.max_pixels);

  spng_trns trns{};
  const bool has_trns = spng_get_trns(context.get(), &trns) == 0;
  const int native = file_channels(ihdr, has_trns);
  const bool unchanged = options.mode == ImageReadMode::Unchanged;
  const int bits = unchanged && ihdr.bit_depth == 16 ? 16 : 8;
  const int wanted = channels_for(options.mode, native);
  const Output output = unchanged ? unchanged_output(ihdr, native) : converted_output(ihdr, wanted);
  const int format = output.format;
  const int flags = output.channels == 4 ? SPNG_DECODE_TRNS : 0;

  std::size_t size = 0;
  check(spng_decoded_image_size(context.get(), format, &size), source, "cannot decode");
  Raster raster;
  raster.width = ihdr.width;
  raster.height = ihdr.height;
  raster.bits = bits;
  raster.channels = output.channels;
  if (sink != nullptr && bits == 8 && wanted == 3 && output.channels == 3 &&
      format == SPNG_FMT_PNG && ihdr.interlace_method == 0) {
    decode_rows_planar(context.get(), format, raster, *sink, source);
    raster.exif_orientation = orientation_of(context.get());
    return raster;
  }
  raster.pixels.resize(size);
  check(spng_decode_image(context.get(), raster.pixels.data(), size, format, flags), source,
        "corrupt PNG");
  raster.exif_orientation = orientation_of(context.get());
  if (wanted == 2 && ihdr.color_type == SPNG_COLOR_TYPE_TRUECOLOR && has_trns) {
    pillow_transparent_gray(raster);
  }
  if (raster.bits == 8) convert_channels(raster, wanted);
  return raster;
}

}  // namespace fp::image::detail
