// The decoding entry points: torchvision.io's decode_* on tensors and spans,
// the format told by the bytes themselves.
#include <cstdio>
#include <cstring>
#include <string>

#include "file_io.h"
#include "finish.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/image/io.h"
#include "messages.h"
#include "tensor_args.h"

namespace fp::image {

namespace {

enum class Format { Jpeg, Png, Webp, Gif, Avif, Heif, Unknown };

/// The major brand of an ISO base media file ("ftyp" box first), as AVIF
/// and HEIF/HEIC files start.
Format iso_brand(std::span<const std::uint8_t> b) {
  if (b.size() < 12 || std::memcmp(b.data() + 4, "ftyp", 4) != 0) return Format::Unknown;
  const std::string brand(reinterpret_cast<const char*>(b.data() + 8), 4);
  if (brand == "avif" || brand == "avis") return Format::Avif;
  for (const char* heif : {"heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"}) {
    if (brand == heif) return Format::Heif;
  }
  return Format::Unknown;
}

Format sniff(std::span<const std::uint8_t> b) {
  static constexpr std::uint8_t png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (b.size() >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) return Format::Jpeg;
  if (b.size() >= 8 && std::memcmp(b.data(), png, 8) == 0) return Format::Png;
  if (b.size() >= 12 && std::memcmp(b.data(), "RIFF", 4) == 0 &&
      std::memcmp(b.data() + 8, "WEBP", 4) == 0) {
    return Format::Webp;
  }
  if (b.size() >= 6 && std::memcmp(b.data(), "GIF8", 4) == 0) return Format::Gif;
  return iso_brand(b);
}

std::string first_bytes(std::span<const std::uint8_t> bytes) {
  std::string hex;
  char digits[4];
  for (std::size_t i = 0; i < bytes.size() && i < 8; ++i) {
    std::snprintf(digits, sizeof digits, "%02x", bytes[i]);
    hex += (i ? " " : "") + std::string(digits);
  }
  return hex.empty() ? "no bytes" : "first bytes " + hex;
}

using Decoder = detail::Raster (*)(std::span<const std::uint8_t>, const DecodeOptions&,
                                   const std::string&, detail::PlaneSink*);

Tensor decode_with(Decoder decoder, std::span<const std::uint8_t> bytes,
                   const DecodeOptions& options, const std::string& source) {
  detail::TensorSink sink(options.interleaved);
  detail::Raster raster = decoder(bytes, options, source, &sink);
  return detail::finish(std::move(raster), options, sink);
}

Tensor decode_tensor(TensorView data, const DecodeOptions& options, const char* function,
                     Decoder decoder) {
  return decode_with(decoder, detail::byte_span(data, function), options, "the image bytes");
}

}  // namespace

Tensor decode_image(std::span<const std::uint8_t> bytes, const DecodeOptions& options,
                    const std::string& source) {
  switch (sniff(bytes)) {
    case Format::Jpeg:
      return decode_with(detail::decode_jpeg_bytes, bytes, options, source);
    case Format::Png:
      return decode_with(detail::decode_png_bytes, bytes, options, source);
    case Format::Webp:
      return decode_with(detail::decode_webp_bytes, bytes, options, source);
    case Format::Gif:
      return decode_with(detail::decode_gif_bytes, bytes, options, source);
    case Format::Avif:
      return decode_with(detail::decode_avif_bytes, bytes, options, source);
    case Format::Heif:
      // Refused by name: Pillow, the reference, cannot read HEIF without a
      // plugin, so libheif's pixels could not be checked.
      detail::fail(ErrorCode::Unsupported, "decode_image", source,
                   "HEIF/HEIC is not supported (fp::image decodes JPEG, PNG, WebP, GIF and AVIF)");
    case Format::Unknown:
      break;
  }
  detail::fail(ErrorCode::Format, "decode_image", source,
               "not a JPEG, PNG, WebP, GIF or AVIF image (" + first_bytes(bytes) +
                   "); the format is told by the bytes, not by the file name");
}

Tensor decode_image(TensorView data, const DecodeOptions& options) {
  return decode_image(detail::byte_span(data, "decode_image"), options);
}

Tensor decode_jpeg(TensorView data, const DecodeOptions& options) {
  return decode_tensor(data, options, "decode_jpeg", detail::decode_jpeg_bytes);
}

Tensor decode_png(TensorView data, const DecodeOptions& options) {
  return decode_tensor(data, options, "decode_png", detail::decode_png_bytes);
}

Tensor decode_avif(TensorView data, const DecodeOptions& options) {
  return decode_tensor(data, options, "decode_avif", detail::decode_avif_bytes);
}

Tensor decode_gif(TensorView data, const DecodeOptions& options) {
  return decode_tensor(data, options, "decode_gif", detail::decode_gif_bytes);
}

Tensor decode_webp(TensorView data, const DecodeOptions& options) {
  return decode_tensor(data, options, "decode_webp", detail::decode_webp_bytes);
}

Tensor read_file(const std::filesystem::path& path) {
  const std::vector<std::uint8_t> bytes = detail::read_whole_file(path, "read_file");
  Tensor data = fp::empty({static_cast<std::int64_t>(bytes.size())}, DType::U8);
  if (!bytes.empty()) std::memcpy(data.data_mut<std::uint8_t>().data(), bytes.data(), bytes.size());
  return data;
}

void write_file(const std::filesystem::path& path, TensorView data) {
  detail::write_atomically(path, detail::byte_span(data, "write_file"), "write_file");
}

Tensor read_image(const std::filesystem::path& path, const DecodeOptions& options) {
  const std::vector<std::uint8_t> bytes = detail::read_whole_file(path, "read_image");
  return decode_image(bytes, options, path.string());
}

}  // namespace fp::image
