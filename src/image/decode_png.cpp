// PNG decoding with libspng: no setjmp, errors are return codes, so a corrupt
// file unwinds like any C++ error. 8-bit output matches libpng, Pillow and
// torchvision pixel for pixel; 16-bit samples come out in host order. The
// one exception is the photo case (8-bit RGB, not interlaced, wanted as RGB),
// which libpng reads faster; see decode_rgb.
#include <png.h>
#include <spng.h>

#include <csetjmp>
#include <cstdio>
#include <cstring>

#include <memory>
#include <string>
#include <vector>

#include "libpng_errors.h"
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
    fail(ErrorCode::Format, "decode_png", source, std::string(what) + ": " + spng_strerror(code));
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

/// Pillow makes an 8-bit RGB PNG's tRNS-transparent pixels gray = R (not the
/// luma) when it converts to gray+alpha; as in Pillow. On RGBA samples. (A
/// 16-bit file's tRNS Pillow never matches: there the luma stays.)
void pillow_transparent_gray(Raster& raster) {
  std::uint8_t* p = raster.pixels.data();
  const auto count = static_cast<std::size_t>(raster.width * raster.height);
  for (std::size_t i = 0; i < count; ++i) {
    std::uint8_t* pixel = p + 4 * i;
    if (pixel[3] == 0) pixel[1] = pixel[2] = pixel[0];
  }
}

/// The text chunks (tEXt, zTXt, iTXt) Pillow reads orientation from: ImageMagick's
/// "Raw profile type exif" and the XMP packet "XML:com.adobe.xmp"; the last of
/// each, as Pillow's info dict keeps it.
class PngText {
 public:
  void add(std::string_view keyword, std::string_view text) {
    if (keyword == "Raw profile type exif") raw_profile_ = text;
    if (keyword == "XML:com.adobe.xmp") xmp_ = text;
  }
  /// Pillow's order: the eXIf chunk, else the raw profile, then XMP when the
  /// EXIF has no orientation.
  int orientation(std::span<const std::uint8_t> exif) const {
    if (!exif.empty()) return orientation_of(exif, xmp_);
    const std::vector<std::uint8_t> profile = raw_profile_bytes(raw_profile_);
    return orientation_of(profile, xmp_);
  }

 private:
  std::string raw_profile_;
  std::string xmp_;
};

// The common photo case, an 8-bit RGB non-interlaced PNG wanted as RGB, is
// read with libpng instead: its SSE2 row filters (Paeth above all) undo a
// photo's rows about three times faster than libspng 0.7's scalar ones, the
// same bytes. libpng reports errors by longjmp, so, as for libjpeg, the
// function that arms setjmp is small and C-style and writes only into
// buffers allocated before it.
struct LibpngRead {
  png_structp png = nullptr;
  png_infop info = nullptr;
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;
  std::size_t offset = 0;
  char message[kLibpngMessageSize] = "";
};

extern "C" void on_libpng_read(png_structp png, png_bytep out, png_size_t length) {
  auto* read = static_cast<LibpngRead*>(png_get_io_ptr(png));
  if (length > read->size - read->offset) png_error(png, "the PNG data is truncated");
  std::memcpy(out, read->data + read->offset, length);
  read->offset += length;
}

/// Owns libpng's structures; destroyed like any C++ object.
class LibpngReader {
 public:
  explicit LibpngReader(std::span<const std::uint8_t> bytes) {
    read_.data = bytes.data();
    read_.size = bytes.size();
    read_.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, read_.message, on_libpng_error,
                                       on_libpng_warning);
    if (read_.png != nullptr) read_.info = png_create_info_struct(read_.png);
  }
  LibpngReader(const LibpngReader&) = delete;
  LibpngReader& operator=(const LibpngReader&) = delete;
  ~LibpngReader() { png_destroy_read_struct(&read_.png, &read_.info, nullptr); }

  LibpngRead* read() { return read_.info != nullptr ? &read_ : nullptr; }

 private:
  LibpngRead read_;
};

// C-style: reads the whole PNG, scattering each 8-bit RGB row (into `row`)
// into the planes of `out` while it is in cache, or, with no `row`, reading
// the rows into `out` as they are (interleaved). False, with a message, on
// any error or when the file is not the 8-bit RGB non-interlaced image of
// `width` x `height` that libspng's header said it was.
bool libpng_read_rgb(LibpngRead* read, std::uint8_t* row, std::uint8_t* out, std::uint32_t width,
                     std::uint32_t height) {
  if (setjmp(png_jmpbuf(read->png))) return false;
  png_set_read_fn(read->png, read, on_libpng_read);
  // Like libspng's SPNG_CRC_ERROR: a bad CRC in any chunk is an error.
  png_set_crc_action(read->png, PNG_CRC_ERROR_QUIT, PNG_CRC_ERROR_QUIT);
  png_read_info(read->png, read->info);
  if (png_get_image_width(read->png, read->info) != width ||
      png_get_image_height(read->png, read->info) != height ||
      png_get_bit_depth(read->png, read->info) != 8 ||
      png_get_color_type(read->png, read->info) != PNG_COLOR_TYPE_RGB ||
      png_get_interlace_type(read->png, read->info) != PNG_INTERLACE_NONE) {
    std::snprintf(read->message, sizeof read->message, "the header changed between readers");
    return false;
  }
  const std::size_t plane = static_cast<std::size_t>(width) * height;
  for (std::uint32_t y = 0; y < height; ++y) {
    if (row == nullptr) {
      png_read_row(read->png, out + static_cast<std::size_t>(y) * width * 3, nullptr);
      continue;
    }
    png_read_row(read->png, row, nullptr);
    std::uint8_t* r = out + static_cast<std::size_t>(y) * width;
    deinterleave3(row, r, r + plane, r + 2 * plane, width);
  }
  png_read_end(read->png, read->info);
  return true;
}

/// True when `bytes` is whole PNG framing: chunks one after another up to a
/// complete IEND. libspng (like Pillow) decodes a file that lacks its IEND or
/// last IDAT CRC; libpng refuses it, so only whole files take libpng's path
/// and every truncated one keeps libspng's behaviour.
bool whole_chunks(std::span<const std::uint8_t> bytes) {
  std::size_t at = 8;  // after the signature
  while (bytes.size() - at >= 12) {
    const std::uint8_t* c = bytes.data() + at;
    const std::size_t length = (std::size_t{c[0]} << 24) | (std::size_t{c[1]} << 16) |
                               (std::size_t{c[2]} << 8) | std::size_t{c[3]};
    if (length > bytes.size() - at - 12) return false;
    if (std::memcmp(c + 4, "IEND", 4) == 0) return true;
    at += 12 + length;
  }
  return false;
}

/// The 8-bit RGB non-interlaced PNG wanted as RGB, as planes or interleaved
/// rows (the sink's when there is one, laid out as it asks), EXIF
/// orientation from libpng (an eXIf chunk may follow the image).
void decode_rgb(std::span<const std::uint8_t> bytes, Raster& raster, PlaneSink* sink,
                const std::string& source) {
  LibpngReader reader(bytes);
  LibpngRead* read = reader.read();
  if (read == nullptr) fail(ErrorCode::OutOfMemory, "decode_png", source, "out of memory");
  raster.planar = sink == nullptr || !sink->interleaved();
  Bytes row(raster.planar ? raster.row_bytes() : 0);
  std::uint8_t* out = nullptr;
  if (sink != nullptr) {
    out = sink->allocate(3, raster.height, raster.width);
    raster.in_sink = true;
  } else {
    raster.pixels.resize(raster.row_bytes() * static_cast<std::size_t>(raster.height));
    out = raster.pixels.data();
  }
  if (!libpng_read_rgb(read, raster.planar ? row.data() : nullptr, out,
                       static_cast<std::uint32_t>(raster.width),
                       static_cast<std::uint32_t>(raster.height))) {
    fail(ErrorCode::Format, "decode_png", source, std::string("corrupt PNG: ") + read->message);
  }
  png_bytep exif = nullptr;
  png_uint_32 length = 0;
  std::span<const std::uint8_t> exif_bytes;
  if (png_get_eXIf_1(read->png, read->info, &length, &exif) != 0 && exif != nullptr) {
    exif_bytes = {exif, length};
  }
  png_textp texts = nullptr;
  int count = 0;
  png_get_text(read->png, read->info, &texts, &count);
  PngText text;
  for (int i = 0; i < count; ++i) {
    const std::size_t size = texts[i].compression == PNG_ITXT_COMPRESSION_NONE ||
                                     texts[i].compression == PNG_ITXT_COMPRESSION_zTXt
                                 ? texts[i].itxt_length
                                 : texts[i].text_length;
    text.add(texts[i].key, {texts[i].text, size});
  }
  raster.exif_orientation = text.orientation(exif_bytes);
}

int png_orientation(spng_ctx* context) {
  spng_exif exif{};
  std::span<const std::uint8_t> exif_bytes;
  if (spng_get_exif(context, &exif) == 0 && exif.data != nullptr) {
    exif_bytes = {reinterpret_cast<const std::uint8_t*>(exif.data), exif.length};
  }
  std::uint32_t count = 0;
  PngText text;
  if (spng_get_text(context, nullptr, &count) == 0 && count != 0) {
    std::vector<spng_text> texts(count);
    if (spng_get_text(context, texts.data(), &count) == 0) {
      for (const spng_text& t : texts)
        text.add(t.keyword, {t.text, t.length});
    }
  }
  return text.orientation(exif_bytes);
}

}  // namespace

Raster decode_png_bytes(std::span<const std::uint8_t> bytes, const DecodeOptions& options,
                        const std::string& source, PlaneSink* sink) {
  if (bytes.empty()) fail(ErrorCode::Format, "decode_png", source, "the data is empty");
  Context context(spng_ctx_new(0));
  if (!context) fail(ErrorCode::OutOfMemory, "decode_png", source, "out of memory");
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
  if (ihdr.bit_depth == 8 && wanted == 3 && output.channels == 3 && format == SPNG_FMT_PNG &&
      ihdr.interlace_method == 0 && whole_chunks(bytes)) {
    decode_rgb(bytes, raster, sink, source);
    return raster;
  }
  raster.pixels.resize(size);
  check(spng_decode_image(context.get(), raster.pixels.data(), size, format, flags), source,
        "corrupt PNG");
  raster.exif_orientation = png_orientation(context.get());
  if (wanted == 2 && ihdr.color_type == SPNG_COLOR_TYPE_TRUECOLOR && ihdr.bit_depth == 8 &&
      has_trns) {
    pillow_transparent_gray(raster);
  }
  if (raster.bits == 8) convert_channels(raster, wanted);
  return raster;
}

}  // namespace fp::image::detail
