// Reading, decoding, encoding and writing images: torchvision.io's functions
// on flash_powder tensors, decoded by libjpeg-turbo, libspng and libwebp.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "flash_powder/core/tensor.h"

namespace fp::image {

/// The channels a decoded image has. Python: `torchvision.io.ImageReadMode`.
/// Gray, GrayAlpha, RGB and RGBA convert like Pillow's `Image.convert("L" |
/// "LA" | "RGB" | "RGBA")` (gray = (19595 R + 38470 G + 7471 B + 32768) >> 16,
/// a PNG's tRNS becomes alpha); 16-bit samples become 8-bit as `v >> 8`.
enum class ImageReadMode { Unchanged, Gray, GrayAlpha, RGB, RGBA };

/// Pillow's `Image.MAX_IMAGE_PIXELS * 2`: above this many pixels Pillow refuses
/// an image as a decompression bomb, and so does flash_powder by default.
inline constexpr std::uint64_t default_max_pixels = 178956970;

/// How to decode. Python: the keyword arguments of `torchvision.io.decode_image`.
struct DecodeOptions {
  /// Unchanged keeps the file's channels: gray 1, gray+alpha 2, colour 3,
  /// colour+alpha 4 (a palette PNG: 3, or 4 when it has tRNS; a CMYK JPEG: 3).
  ImageReadMode mode = ImageReadMode::Unchanged;
  /// Rotate/flip by the EXIF orientation tag (JPEG APP1, PNG eXIf) like
  /// Pillow's `ImageOps.exif_transpose`. torchvision's default is off.
  bool apply_exif_orientation = true;
  /// U8 (default), or a floating dtype: the pixels scaled to [0, 1] (floatify).
  std::optional<DType> dtype = std::nullopt;
  /// Decompression-bomb limit: larger images throw fp::Error before any
  /// pixel buffer is allocated.
  std::uint64_t max_pixels = default_max_pixels;
};

/// The bytes of a file as a 1-D uint8 tensor. Python: `torchvision.io.read_file`.
Tensor read_file(const std::filesystem::path& path);
/// Writes a 1-D uint8 tensor to `path` atomically (temporary file + rename).
/// Python: `torchvision.io.write_file`.
void write_file(const std::filesystem::path& path, TensorView data);

/// Decodes a JPEG, PNG or WebP image, the format told by its first bytes (not
/// a file name): a contiguous [C, H, W] uint8 tensor (uint16 for a 16-bit PNG
/// read Unchanged). `data` is a 1-D uint8 CPU tensor (read_file's result).
/// Python: `torchvision.io.decode_image(data, mode, apply_exif_orientation)`.
Tensor decode_image(TensorView data, const DecodeOptions& options = {});
/// The same from a byte span; `source` names the bytes in error messages.
Tensor decode_image(std::span<const std::uint8_t> bytes, const DecodeOptions& options = {},
                    const std::string& source = "the image bytes");
/// Python: `torchvision.io.decode_jpeg`. CMYK and YCCK JPEGs become RGB as in Pillow.
Tensor decode_jpeg(TensorView data, const DecodeOptions& options = {});
/// Python: `torchvision.io.decode_png`.
Tensor decode_png(TensorView data, const DecodeOptions& options = {});
/// Python: `torchvision.io.decode_webp` (still images; the first frame is not
/// taken from animations, which are refused).
Tensor decode_webp(TensorView data, const DecodeOptions& options = {});

/// Reads and decodes the image at `path`. Python: `torchvision.io.decode_image(path, ...)`
/// (the seed's `Tensor::read_image`).
Tensor read_image(const std::filesystem::path& path, const DecodeOptions& options = {});

/// Options of encode_png. Python: `torchvision.io.encode_png(compression_level)`.
struct PngOptions {
  /// zlib level 0-9; 6 is torchvision's and libpng's default.
  int compression_level = 6;
  /// Level 1, Z_RLE and adaptive filters: several times faster than level 6
  /// and, on photographs, no larger.
  bool fast = false;
};
/// Options of encode_jpeg. Python: `torchvision.io.encode_jpeg(quality)`.
struct JpegOptions {
  int quality = 75;  ///< 1-100; 4:2:0 chroma subsampling, accurate DCT, like Pillow
};
/// Options of encode_webp. Python: `PIL.Image.save(..., "WEBP", quality, lossless)`.
struct WebpOptions {
  float quality = 80;  ///< 0-100
  bool lossless = false;
};

/// Encodes a [C, H, W] uint8 image (C = 1, 2, 3 or 4; uint16 too) as PNG:
/// a 1-D uint8 tensor. Python: `torchvision.io.encode_png`.
Tensor encode_png(TensorView image, const PngOptions& options = {});
/// Encodes a [C, H, W] uint8 image (C = 1 or 3) as JPEG. Python: `torchvision.io.encode_jpeg`.
Tensor encode_jpeg(TensorView image, const JpegOptions& options = {});
/// Encodes a [C, H, W] uint8 image (C = 3 or 4) as WebP.
Tensor encode_webp(TensorView image, const WebpOptions& options = {});

/// encode_png then write_file. Python: `torchvision.io.write_png`.
void write_png(TensorView image, const std::filesystem::path& path,
               const PngOptions& options = {});
/// encode_jpeg then write_file. Python: `torchvision.io.write_jpeg`.
void write_jpeg(TensorView image, const std::filesystem::path& path,
                const JpegOptions& options = {});
/// encode_webp then write_file.
void write_webp(TensorView image, const std::filesystem::path& path,
                const WebpOptions& options = {});

}  // namespace fp::image
