// AVIF decoding with Debian's libavif (its AV1 decoder, dav1d or libaom,
// underneath): every frame in 8-bit RGB(A), libavif's own YUV to RGB
// conversion (the one Pillow's AVIF plugin calls, pixel for pixel the same on
// the test corpus). Orientation as Pillow reads it: the irot/imir boxes turned
// into an EXIF orientation, which replaces the EXIF block's own.
#include <avif/avif.h>

#include <algorithm>
#include <memory>
#include <string_view>

#include "messages.h"
#include "raster.h"

namespace fp::image::detail {

namespace {

constexpr const char* kAvifFunction = "decode_avif";

struct AvifDecoderDeleter {
  void operator()(avifDecoder* decoder) const { avifDecoderDestroy(decoder); }
};

void check_avif(avifResult result, const std::string& source, const char* what) {
  if (result != AVIF_RESULT_OK) {
    fail(ErrorCode::Format, kAvifFunction, source,
         std::string(what) + ": " + avifResultToString(result));
  }
}

/// Pillow's AVIF plugin: the image's rotation (irot, counter-clockwise
/// quarter turns) and mirror (imir) as the EXIF orientation that shows it.
int transform_orientation(const avifImage& image) {
  const bool mirror = (image.transformFlags & AVIF_TRANSFORM_IMIR) != 0;
  const bool left_right = image.imir.mode != 0;  // axis 1: the columns swap
  const int angle = (image.transformFlags & AVIF_TRANSFORM_IROT) != 0 ? image.irot.angle : 0;
  switch (angle) {
    case 1:
      return mirror ? (left_right ? 7 : 5) : 8;
    case 2:
      return mirror ? (left_right ? 4 : 2) : 3;
    case 3:
      return mirror ? (left_right ? 5 : 7) : 6;
    default:
      return mirror ? (left_right ? 2 : 4) : 1;
  }
}

/// The orientation Pillow's getexif() reports for an AVIF: the transform's,
/// which replaces any Orientation tag of the EXIF block; XMP's when neither
/// the transform nor the EXIF says anything.
int avif_orientation(const avifImage& image) {
  const int transform = transform_orientation(image);
  if (transform != 1) return transform;
  const std::span<const std::uint8_t> exif(image.exif.data, image.exif.size);
  const std::string_view xmp(reinterpret_cast<const char*>(image.xmp.data), image.xmp.size);
  const int with_xmp = orientation_of(exif, xmp);
  // Equal with and without XMP: the EXIF has a tag, which the transform's 1 replaced.
  return with_xmp != orientation_of(exif, {}) ? with_xmp : 1;
}

}  // namespace

Raster decode_avif_bytes(std::span<const std::uint8_t> bytes, const DecodeOptions& options,
                         const std::string& source, PlaneSink* /*sink*/) {
  if (bytes.empty()) fail(ErrorCode::Format, kAvifFunction, source, "the data is empty");
  const std::unique_ptr<avifDecoder, AvifDecoderDeleter> decoder(avifDecoderCreate());
  if (!decoder) fail(ErrorCode::OutOfMemory, kAvifFunction, source, "out of memory");
  decoder->maxThreads = 1;
  // libavif's own limit too, so that nothing larger is allocated inside it.
  decoder->imageSizeLimit = static_cast<std::uint32_t>(
      std::min<std::uint64_t>(options.max_pixels, decoder->imageSizeLimit));
  check_avif(avifDecoderSetIOMemory(decoder.get(), bytes.data(), bytes.size()), source,
             "not a readable AVIF");
  check_avif(avifDecoderParse(decoder.get()), source, "not a readable AVIF");
  const avifImage& first = *decoder->image;
  check_dimensions(kAvifFunction, source, first.width, first.height, options.max_pixels);
  const std::uint64_t frame_pixels = std::uint64_t{first.width} * first.height;
  const auto frames = static_cast<std::uint64_t>(std::max(decoder->imageCount, 1));
  if (frames * frame_pixels > options.max_pixels) {
    fail(ErrorCode::BadArgument, kAvifFunction, source,
         "the sequence has " + std::to_string(frames) + " frames of " +
             std::to_string(first.width) + "x" + std::to_string(first.height) +
             " pixels, more than the limit of " + std::to_string(options.max_pixels) +
             " pixels in all; raise DecodeOptions::max_pixels to read it");
  }
  const bool alpha = decoder->alphaPresent != 0;
  // Pillow reads a monochrome (4:0:0) AVIF without alpha as "L".
  const bool gray = first.yuvFormat == AVIF_PIXEL_FORMAT_YUV400;
  const int wanted = channels_for(options.mode, alpha ? 4 : gray ? 1 : 3);
  Raster raster;
  raster.width = first.width;
  raster.height = first.height;
  // With alpha, always RGBA first: libavif's RGB output of such a file is
  // not Pillow's (which drops the alpha of the RGBA it decodes).
  raster.channels = alpha || wanted == 2 || wanted == 4 ? 4 : 3;
  raster.frames = 0;
  for (;;) {
    const avifResult next = avifDecoderNextImage(decoder.get());
    if (next == AVIF_RESULT_NO_IMAGES_REMAINING && raster.frames > 0) break;
    check_avif(next, source, "corrupt AVIF");
    const avifImage& image = *decoder->image;
    if (image.width != first.width || image.height != first.height) {
      fail(ErrorCode::Format, kAvifFunction, source, "the frames differ in size");
    }
    avifRGBImage rgb;
    avifRGBImageSetDefaults(&rgb, &image);
    rgb.format = raster.channels == 4 ? AVIF_RGB_FORMAT_RGBA : AVIF_RGB_FORMAT_RGB;
    rgb.depth = 8;
    const std::size_t at = raster.pixels.size();
    raster.pixels.resize(at + raster.row_bytes() * static_cast<std::size_t>(raster.height));
    rgb.pixels = raster.pixels.data() + at;
    rgb.rowBytes = static_cast<std::uint32_t>(raster.row_bytes());
    check_avif(avifImageYUVToRGB(&image, &rgb), source, "cannot convert the AVIF to RGB");
    ++raster.frames;
  }
  raster.exif_orientation = avif_orientation(*decoder->image);
  convert_channels(raster, wanted);
  return raster;
}

}  // namespace fp::image::detail
