// The decompression-bomb limit, checked before any pixel buffer exists.
#include <string>

#include "messages.h"
#include "raster.h"

namespace fp::image::detail {

void check_dimensions(const std::string& function, const std::string& source, std::int64_t width,
                      std::int64_t height, std::uint64_t max_pixels) {
  if (width <= 0 || height <= 0) {
    fail(ErrorCode::Format, function, source,
         "the image is " + std::to_string(width) + "x" + std::to_string(height) +
             " pixels; an image needs at least one");
  }
  const auto pixels = static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height);
  if (pixels > max_pixels) {
    fail(ErrorCode::BadArgument, function, source,
         "the image is " + std::to_string(width) + "x" + std::to_string(height) + " = " +
             std::to_string(pixels) + " pixels, more than the limit of " +
             std::to_string(max_pixels) +
             " (a decompression bomb?); raise DecodeOptions::max_pixels to read it");
  }
}

}  // namespace fp::image::detail
