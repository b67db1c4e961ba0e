// write_png / write_jpeg / write_webp: encode, then replace the file atomically.
#include "file_io.h"
#include "flash_powder/image/io.h"
#include "messages.h"

namespace fp::image {

void write_png(TensorView image, const std::filesystem::path& path, const PngOptions& options) {
  const Tensor encoded = encode_png(image, options);
  detail::write_atomically(path, encoded.data<std::uint8_t>(), "write_png");
}

void write_jpeg(TensorView image, const std::filesystem::path& path, const JpegOptions& options) {
  const Tensor encoded = encode_jpeg(image, options);
  detail::write_atomically(path, encoded.data<std::uint8_t>(), "write_jpeg");
}

void write_webp(TensorView image, const std::filesystem::path& path, const WebpOptions& options) {
  const Tensor encoded = encode_webp(image, options);
  detail::write_atomically(path, encoded.data<std::uint8_t>(), "write_webp");
}

}  // namespace fp::image
