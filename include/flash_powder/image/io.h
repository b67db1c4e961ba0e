// Reading, decoding, encoding and writing images: torchvision.io's functions
// on flash_powder tensors, decoded by libjpeg-turbo, libspng, libwebp, giflib and libavif.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "flash_powder/core/tensor.h"
#include "flash_powder/image/options.h"

namespace fp::image {

/// The bytes of a file as a 1-D uint8 tensor. Python: `torchvision.io.read_file`.
Tensor read_file(const std::filesystem::path& path);
/// Writes a 1-D uint8 tensor to `path` atomically (temporary file + rename).
/// Python: `torchvision.io.write_file`.
void write_file(const std::filesystem::path& path, TensorView data);

/// Decodes a JPEG, PNG, WebP, GIF or AVIF image, the format told by its first bytes
/// (not a file name): a contiguous [C, H, W] uint8 tensor (uint16 for a 16-bit
/// PNG read Unchanged; [N, C, H, W] for an animation of N > 1 frames), or the
/// same over interleaved rows with
/// DecodeOptions::interleaved. `data` is a 1-D uint8 CPU tensor (read_file's result).
/// Python: `torchvision.io.decode_image(data, mode, apply_exif_orientation)`.
Tensor decode_image(TensorView data, const DecodeOptions& options = {});
/// The same from a byte span; `source` names the bytes in error messages.
Tensor decode_image(std::span<const std::uint8_t> bytes, const DecodeOptions& options = {},
                    const std::string& source = "the image bytes");
/// Python: `torchvision.io.decode_jpeg`. CMYK and YCCK JPEGs become RGB as in Pillow.
Tensor decode_jpeg(TensorView data, const DecodeOptions& options = {});
/// Python: `torchvision.io.decode_png`.
Tensor decode_png(TensorView data, const DecodeOptions& options = {});
/// Python: `torchvision.io.decode_webp`. An animated WebP gives every frame,
/// [N, C, H, W], composed by libwebp as Pillow's `seek(i)` gives them.
Tensor decode_webp(TensorView data, const DecodeOptions& options = {});
/// Python: `torchvision.io.decode_gif`: one frame [C, H, W], an animation
/// [N, C, H, W]; each frame equals Pillow's `seek(i)` then `convert(mode)`
/// (disposal and transparency composed as Pillow does). Unchanged is RGB.
Tensor decode_gif(TensorView data, const DecodeOptions& options = {});
/// Python: `torchvision.io.decode_avif`, in 8 bits (Pillow's AVIF plugin's
/// pixels, orientation from irot/imir as Pillow reads it); a sequence gives
/// [N, C, H, W]. Unchanged is RGB, RGBA when the file has alpha, gray for a
/// monochrome (4:0:0) file without alpha (Pillow's modes).
Tensor decode_avif(TensorView data, const DecodeOptions& options = {});

/// Reads and decodes the image at `path`. Python: `torchvision.io.decode_image(path, ...)`
/// (the seed's `Tensor::read_image`).
Tensor read_image(const std::filesystem::path& path, const DecodeOptions& options = {});

/// Encodes a [C, H, W] uint8 image (C = 1, 2, 3 or 4; uint16 too) as PNG:
/// a 1-D uint8 tensor. Python: `torchvision.io.encode_png`.
///
/// The encoders read (H, W, C) samples. A channels-last [C, H, W] image (a
/// permuted (H, W, C) array, as torchvision.io's decoders return) is read where
/// it lies, without a copy; a contiguous one is interleaved first (one pass over
/// the image); any other layout is copied.
Tensor encode_png(TensorView image, const PngOptions& options = {});
/// Encodes a [C, H, W] uint8 image (C = 1 or 3) as JPEG. Python: `torchvision.io.encode_jpeg`.
Tensor encode_jpeg(TensorView image, const JpegOptions& options = {});
/// Encodes a [C, H, W] uint8 image (C = 3 or 4) as WebP.
Tensor encode_webp(TensorView image, const WebpOptions& options = {});

/// encode_png then write_file. Python: `torchvision.io.write_png`.
void write_png(TensorView image, const std::filesystem::path& path, const PngOptions& options = {});
/// encode_jpeg then write_file. Python: `torchvision.io.write_jpeg`.
void write_jpeg(TensorView image, const std::filesystem::path& path,
                const JpegOptions& options = {});
/// encode_webp then write_file.
void write_webp(TensorView image, const std::filesystem::path& path,
                const WebpOptions& options = {});

}  // namespace fp::image
