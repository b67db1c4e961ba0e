// WebP decoding with libwebp (lossy and lossless, still images): decoded
// straight into a buffer allocated after the size and the bomb limit are known.
#include <webp/decode.h>

#include "messages.h"
#include "raster.h"

namespace fp::image::detail {

Raster decode_webp_bytes(std::span<const std::uint8_t> bytes, const DecodeOptions& options,
                         const std::string& source, PlaneSink* sink) {
  const std::string function = "decode_webp";
  if (bytes.empty()) fail(ErrorCode::Format, function, source, "the data is empty");
  WebPBitstreamFeatures features{};
  if (WebPGetFeatures(bytes.data(), bytes.size(), &features) != VP8_STATUS_OK) {
    fail(ErrorCode::Unsupported, function, source, "not a readable WebP image");
  }
  if (features.has_animation) {
    fail(ErrorCode::Unsupported, function, source,
         "animated WebP is not supported; decode a still image");
  }
  check_dimensions(function, source, features.width, features.height, options.max_pixels);
  Raster raster;
  raster.width = features.width;
  raster.height = features.height;
  const int wanted = channels_for(options.mode, features.has_alpha ? 4 : 3);
  raster.channels = wanted == 2 || wanted == 4 ? 4 : 3;
  const std::size_t size = raster.row_bytes() * static_cast<std::size_t>(raster.height);
  std::uint8_t* out = nullptr;
  if (sink != nullptr && sink->interleaved() && raster.channels == wanted) {
    // libwebp's rows are the result itself: straight into the sink.
    out = sink->allocate(raster.channels, raster.height, raster.width);
    raster.in_sink = true;
  } else {
    raster.pixels.resize(size);
    out = raster.pixels.data();
  }
  const auto stride = static_cast<int>(raster.row_bytes());
  const std::uint8_t* decoded =
      raster.channels == 4 ? WebPDecodeRGBAInto(bytes.data(), bytes.size(), out, size, stride)
                           : WebPDecodeRGBInto(bytes.data(), bytes.size(), out, size, stride);
  if (decoded == nullptr)
    fail(ErrorCode::Format, function, source, "corrupt or truncated WebP data");
  if (!raster.in_sink) convert_channels(raster, wanted);
  return raster;
}

}  // namespace fp::image::detail
