// JPEG decoding with libjpeg-turbo's libjpeg API (ISLOW IDCT, fancy
// upsampling: the defaults torchvision and Pillow decode with, pixel for
// pixel). libjpeg reports errors by longjmp; the functions that call it with a
// setjmp armed are small, C-style and own nothing with a destructor, and every
// buffer they write into is allocated before them, so an error unwinds nothing
// (torchvision #9383 leaked on malformed JPEGs because it did).
#include <csetjmp>
#include <cstdio>
#include <cstring>

// jpeglib.h needs size_t and FILE declared first.
#include <jpeglib.h>
// jerror.h after jpeglib.h: the message codes (JWRN_JPEG_EOF).
#include <jerror.h>

#include "messages.h"
#include "raster.h"
#include "shuffle.h"

namespace fp::image::detail {

namespace {

struct JpegErrors {
  jpeg_error_mgr manager;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
  bool truncated;
};

extern "C" void on_jpeg_error(j_common_ptr cinfo) {
  auto* errors = reinterpret_cast<JpegErrors*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, errors->message);
  std::longjmp(errors->jump, 1);
}

// A truncated stream is only a warning to libjpeg, which pads the image with
// gray; Pillow refuses it ("image file is truncated"), and so do we.
extern "C" void on_jpeg_message(j_common_ptr cinfo, int level) {
  auto* errors = reinterpret_cast<JpegErrors*>(cinfo->err);
  if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) {
    errors->truncated = true;
    (*cinfo->err->format_message)(cinfo, errors->message);
  }
}

/// The decompressor and its error manager; destroyed by JpegDecoder.
struct JpegState {
  jpeg_decompress_struct cinfo;
  JpegErrors errors;
};

// C-style: reads the header and starts decompression. No destructor runs in
// this frame, so a longjmp out of libjpeg lands here safely.
bool start(JpegState* state, const std::uint8_t* data, std::size_t size) {
  if (setjmp(state->errors.jump)) return false;
  jpeg_mem_src(&state->cinfo, data, static_cast<unsigned long>(size));
  jpeg_save_markers(&state->cinfo, JPEG_APP0 + 1, 0xFFFF);
  jpeg_read_header(&state->cinfo, TRUE);
  return true;
}

bool begin(JpegState* state, J_COLOR_SPACE out_space) {
  if (setjmp(state->errors.jump)) return false;
  state->cinfo.out_color_space = out_space;
  jpeg_start_decompress(&state->cinfo);
  return true;
}

// C-style: decodes every row into `out`, allocated by the caller for
// output_height rows of `row_bytes`.
bool read_rows(JpegState* state, std::uint8_t* out, std::size_t row_bytes) {
  if (setjmp(state->errors.jump)) return false;
  jpeg_decompress_struct* cinfo = &state->cinfo;
  while (cinfo->output_scanline < cinfo->output_height) {
    JSAMPROW row = out + cinfo->output_scanline * row_bytes;
    jpeg_read_scanlines(cinfo, &row, 1);
  }
  jpeg_finish_decompress(cinfo);
  return true;
}

// C-style: decodes every row into `row` (one row of 3 samples a pixel,
// allocated by the caller) and scatters it into the three planes of `out`
// while it is in cache: the [C, H, W] result without a second pass.
bool read_rows_planar(JpegState* state, std::uint8_t* row, std::uint8_t* out) {
  if (setjmp(state->errors.jump)) return false;
  jpeg_decompress_struct* cinfo = &state->cinfo;
  const std::size_t width = cinfo->output_width;
  const std::size_t plane = width * cinfo->output_height;
  while (cinfo->output_scanline < cinfo->output_height) {
    const std::size_t y = cinfo->output_scanline;
    JSAMPROW rows[1] = {row};
    jpeg_read_scanlines(cinfo, rows, 1);
    std::uint8_t* r = out + y * width;
    deinterleave3(row, r, r + plane, r + 2 * plane, width);
  }
  jpeg_finish_decompress(cinfo);
  return true;
}

class JpegDecoder {
 public:
  JpegDecoder() {
    state_.cinfo.err = jpeg_std_error(&state_.errors.manager);
    state_.errors.manager.error_exit = on_jpeg_error;
    state_.errors.manager.emit_message = on_jpeg_message;
    state_.errors.truncated = false;
    jpeg_create_decompress(&state_.cinfo);
  }
  JpegDecoder(const JpegDecoder&) = delete;
  JpegDecoder& operator=(const JpegDecoder&) = delete;
  ~JpegDecoder() { jpeg_destroy_decompress(&state_.cinfo); }

  JpegState* state() { return &state_; }
  std::string message() const { return state_.errors.message; }

 private:
  JpegState state_{};
};

/// The orientation in the APP1 segments, as Pillow keeps them: the first
/// EXIF segment, the last XMP one (after its namespace and NUL).
int jpeg_orientation(const jpeg_decompress_struct& cinfo) {
  static constexpr char xmp_namespace[] = "http://ns.adobe.com/xap/1.0/";  // and its NUL
  std::span<const std::uint8_t> exif;
  std::string_view xmp;
  for (jpeg_saved_marker_ptr m = cinfo.marker_list; m != nullptr; m = m->next) {
    if (m->marker != JPEG_APP0 + 1) continue;
    if (exif.empty() && m->data_length >= 6 && std::memcmp(m->data, "Exif\0\0", 6) == 0) {
      exif = {m->data, m->data_length};
    } else if (m->data_length >= sizeof xmp_namespace &&
               std::memcmp(m->data, xmp_namespace, sizeof xmp_namespace) == 0) {
      xmp = {reinterpret_cast<const char*>(m->data) + sizeof xmp_namespace,
             m->data_length - sizeof xmp_namespace};
    }
  }
  return orientation_of(exif, xmp);
}

/// Pillow's CMYK -> RGB (Convert.c cmyk2rgb) on Adobe-inverted samples, as
/// Pillow reads every CMYK JPEG ("CMYK;I"); libjpeg itself refuses to.
void cmyk_to_rgb(Raster& raster) {
  const auto count = static_cast<std::size_t>(raster.width * raster.height);
  std::uint8_t* p = raster.pixels.data();
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint8_t* in = p + 4 * i;
    std::uint8_t* out = p + 3 * i;
    const int nk = in[3];  // 255 - k after inversion
    for (int c = 0; c < 3; ++c) {
      const int tmp = (255 - in[c]) * nk + 128;
      out[c] = static_cast<std::uint8_t>(nk - (((tmp >> 8) + tmp) >> 8));
    }
  }
  raster.pixels.resize(count * 3);
  raster.channels = 3;
}

}  // namespace

Raster decode_jpeg_bytes(std::span<const std::uint8_t> bytes, const DecodeOptions& options,
                         const std::string& source, PlaneSink* sink) {
  const std::string function = "decode_jpeg";
  if (bytes.empty()) fail(ErrorCode::Format, function, source, "the data is empty");
  JpegDecoder decoder;
  JpegState* state = decoder.state();
  if (!start(state, bytes.data(), bytes.size())) {
    fail(ErrorCode::Format, function, source, "not a readable JPEG: " + decoder.message());
  }
  const jpeg_decompress_struct& cinfo = state->cinfo;
  check_dimensions(function, source, cinfo.image_width, cinfo.image_height, options.max_pixels);
  const bool cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
  const bool gray = cinfo.jpeg_color_space == JCS_GRAYSCALE;
  const J_COLOR_SPACE out_space = cmyk ? JCS_CMYK : gray ? JCS_GRAYSCALE : JCS_RGB;
  if (!begin(state, out_space))
    fail(ErrorCode::Format, function, source, "corrupt JPEG: " + decoder.message());

  Raster raster;
  raster.width = cinfo.output_width;
  raster.height = cinfo.output_height;
  raster.channels = cinfo.output_components;
  raster.exif_orientation = jpeg_orientation(cinfo);
  const int wanted = channels_for(options.mode, cmyk ? 3 : raster.channels);
  // libjpeg's rows are the result itself when no channel conversion follows.
  const bool as_read = !cmyk && raster.channels == wanted;
  const auto rows = static_cast<std::size_t>(raster.height);
  bool read = false;
  if (as_read && sink != nullptr && sink->interleaved()) {
    // Interleaved rows, as libjpeg writes them, into memory that exists before it runs.
    std::uint8_t* out = sink->allocate(raster.channels, raster.height, raster.width);
    raster.in_sink = true;
    read = read_rows(state, out, raster.row_bytes());
  } else if (as_read && raster.channels == 3) {
    // Colour as planes: each row scattered while it is in cache.
    raster.planar = true;
    Bytes row(raster.row_bytes());
    std::uint8_t* planes = nullptr;
    if (sink != nullptr) {
      planes = sink->allocate(3, raster.height, raster.width);
      raster.in_sink = true;
    } else {
      raster.pixels.resize(raster.row_bytes() * rows);
      planes = raster.pixels.data();
    }
    read = read_rows_planar(state, row.data(), planes);
  } else {
    // Anything to convert (CMYK, another channel count): interleaved first.
    raster.pixels.resize(raster.row_bytes() * rows);
    read = read_rows(state, raster.pixels.data(), raster.row_bytes());
  }
  if (!read) fail(ErrorCode::Format, function, source, "corrupt JPEG: " + decoder.message());
  if (state->errors.truncated) {
    fail(ErrorCode::Format, function, source,
         "the JPEG data is truncated (" + decoder.message() + ")");
  }
  if (cmyk) cmyk_to_rgb(raster);
  if (!raster.in_sink && !raster.planar) convert_channels(raster, wanted);
  return raster;
}

}  // namespace fp::image::detail
