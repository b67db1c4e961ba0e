// The options of decoding and encoding (no tensors: the decoders' fuzzers
// build without libtorch).
#pragma once

#include <cstdint>
#include <optional>

#include "flash_powder/base/dtype.h"

namespace fp::image {

/// The channels a decoded image has. Python: `torchvision.io.ImageReadMode`.
/// Gray, GrayAlpha, RGB and RGBA convert like Pillow's `Image.convert("L" |
/// "LA" | "RGB" | "RGBA")` (gray = (19595 R + 38470 G + 7471 B + 32768) >> 16,
/// a PNG's tRNS becomes alpha); 16-bit samples become 8-bit as `v >> 8`
/// (Pillow's for colour; Pillow clips 16-bit gray, docs/guide/image.md).
/// Measured against torchvision 0.29.1 on the test corpus: RGB and Unchanged
/// give torchvision's pixels, except that torchvision keeps 16 bits in RGB
/// mode, returns palette indices for a palette PNG and raw CMYK for a CMYK
/// JPEG read Unchanged (here: RGB, RGBA with tRNS, and RGB), computes gray
/// differently (off by 1-3) and refuses GrayAlpha/RGBA for JPEGs.
enum class ImageReadMode { Unchanged, Gray, GrayAlpha, RGB, RGBA };

/// Pillow's `Image.MAX_IMAGE_PIXELS * 2`: above this many pixels Pillow refuses
/// an image as a decompression bomb, and so does flash_powder by default.
inline constexpr std::uint64_t default_max_pixels = 178956970;

/// How to decode. Python: the keyword arguments of `torchvision.io.decode_image`.
struct DecodeOptions {
  /// Unchanged keeps the file's channels: gray 1, gray+alpha 2, colour 3,
  /// colour+alpha 4 (a palette PNG: 3, or 4 when it has tRNS; a CMYK JPEG: 3;
  /// a GIF: 3, as torchvision's decode_gif).
  ImageReadMode mode = ImageReadMode::Unchanged;
  /// Rotate/flip by the orientation the file records, like Pillow's
  /// `ImageOps.exif_transpose`: EXIF (JPEG APP1, WebP EXIF, PNG eXIf or its
  /// "Raw profile type exif" text), else XMP's tiff:Orientation. torchvision's
  /// default is off.
  bool apply_exif_orientation = true;
  /// U8 (default), or a floating dtype: the pixels scaled to [0, 1] (floatify).
  std::optional<DType> dtype = std::nullopt;
  /// Decompression-bomb limit: larger images throw fp::Error before any
  /// pixel buffer is allocated.
  std::uint64_t max_pixels = default_max_pixels;
  /// False (default): a contiguous [C, H, W] tensor, each channel a plane.
  /// True: the same [C, H, W] tensor over interleaved (H, W, C) memory, as
  /// the codecs write it and torchvision.io returns it (strides
  /// {1, W * C, C}; `image.permute({1, 2, 0})` is contiguous, and
  /// `image.unsqueeze(0)` is a channels_last batch): no pass that scatters
  /// the pixels into planes. Same values either way.
  bool interleaved = false;
};

/// Options of encode_png. Python: `torchvision.io.encode_png(compression_level)`.
struct PngOptions {
  /// zlib level 0-9; 6 is torchvision's and libpng's default.
  int compression_level = 6;
  /// Level 1, Z_RLE and an adaptive choice of the Average and Paeth filters:
  /// two to three times faster than level 6 and, on photographs, about as
  /// large (within 1.5 % either way).
  bool fast = false;
};
/// Options of encode_jpeg. Python: `torchvision.io.encode_jpeg(quality)`.
struct JpegOptions {
  int quality = 75;  ///< 1-100; 4:2:0 chroma subsampling, accurate DCT, like Pillow
};
/// Options of encode_webp. Python: `PIL.Image.save(..., "WEBP", quality, lossless)`.
struct WebpOptions {
  float quality = 80;  ///< 0-100
  /// Lossless compression; `quality` is then ignored.
  bool lossless = false;
};

}  // namespace fp::image
