// WebP decoding with libwebp (lossy and lossless): a still image decoded
// straight into a buffer allocated after the size and the bomb limit are
// known; an animation through libwebp's demux/anim API, which composes each
// frame on the canvas (blending and disposal) as Pillow's WebP plugin reads
// it. EXIF and XMP chunks give the orientation.
#include <webp/decode.h>
#include <webp/demux.h>

#include <memory>
#include <string_view>

#include "messages.h"
#include "raster.h"

namespace fp::image::detail {

namespace {

constexpr const char* kWebpFunction = "decode_webp";

struct DemuxerDeleter {
  void operator()(WebPDemuxer* demuxer) const { WebPDemuxDelete(demuxer); }
};
struct AnimDecoderDeleter {
  void operator()(WebPAnimDecoder* decoder) const { WebPAnimDecoderDelete(decoder); }
};

/// The first chunk of `fourcc` in an extended file, empty when there is none.
std::span<const std::uint8_t> chunk_of(WebPDemuxer* demuxer, const char* fourcc) {
  WebPChunkIterator chunk{};
  std::span<const std::uint8_t> bytes;
  if (WebPDemuxGetChunk(demuxer, fourcc, 1, &chunk) != 0) {
    bytes = {chunk.chunk.bytes, chunk.chunk.size};  // points into the file's bytes
  }
  WebPDemuxReleaseChunkIterator(&chunk);
  return bytes;
}

/// The orientation in the EXIF and XMP chunks (Pillow's info["exif"], ["xmp"]).
int webp_orientation(std::span<const std::uint8_t> bytes) {
  const WebPData data{bytes.data(), bytes.size()};
  const std::unique_ptr<WebPDemuxer, DemuxerDeleter> demuxer(WebPDemux(&data));
  if (!demuxer) return 1;
  const std::span<const std::uint8_t> xmp = chunk_of(demuxer.get(), "XMP ");
  return orientation_of(chunk_of(demuxer.get(), "EXIF"),
                        {reinterpret_cast<const char*>(xmp.data()), xmp.size()});
}

/// Refuses an animation whose frames, all together, exceed the bomb limit:
/// before libwebp's animation decoder allocates its canvas.
void check_animation_size(std::span<const std::uint8_t> bytes, const DecodeOptions& options,
                          const std::string& source) {
  const WebPData data{bytes.data(), bytes.size()};
  const std::unique_ptr<WebPDemuxer, DemuxerDeleter> demuxer(WebPDemux(&data));
  if (!demuxer) fail(ErrorCode::Format, kWebpFunction, source, "corrupt WebP animation");
  const std::uint32_t width = WebPDemuxGetI(demuxer.get(), WEBP_FF_CANVAS_WIDTH);
  const std::uint32_t height = WebPDemuxGetI(demuxer.get(), WEBP_FF_CANVAS_HEIGHT);
  const std::uint32_t frames = WebPDemuxGetI(demuxer.get(), WEBP_FF_FRAME_COUNT);
  check_dimensions(kWebpFunction, source, width, height, options.max_pixels);
  if (std::uint64_t{frames} * width * height > options.max_pixels) {
    fail(ErrorCode::BadArgument, kWebpFunction, source,
         "the animation has " + std::to_string(frames) + " frames of " + std::to_string(width) +
             "x" + std::to_string(height) + " pixels, more than the limit of " +
             std::to_string(options.max_pixels) +
             " pixels in all; raise DecodeOptions::max_pixels to read it");
  }
}

/// Every frame of an animation, composed by libwebp, as RGBA rows.
Raster decode_animation(std::span<const std::uint8_t> bytes, const DecodeOptions& options,
                        const std::string& source, bool has_alpha) {
  check_animation_size(bytes, options, source);
  const WebPData data{bytes.data(), bytes.size()};
  WebPAnimDecoderOptions decoder_options{};
  if (WebPAnimDecoderOptionsInit(&decoder_options) == 0) {
    fail(ErrorCode::Unsupported, kWebpFunction, source, "libwebp's animation API is incompatible");
  }
  decoder_options.color_mode = MODE_RGBA;
  decoder_options.use_threads = 0;
  const std::unique_ptr<WebPAnimDecoder, AnimDecoderDeleter> decoder(
      WebPAnimDecoderNew(&data, &decoder_options));
  if (!decoder) fail(ErrorCode::Format, kWebpFunction, source, "corrupt WebP animation");
  WebPAnimInfo info{};
  if (WebPAnimDecoderGetInfo(decoder.get(), &info) == 0) {
    fail(ErrorCode::Format, kWebpFunction, source, "corrupt WebP animation");
  }
  const std::uint64_t frame_pixels = std::uint64_t{info.canvas_width} * info.canvas_height;
  Raster raster;
  raster.width = info.canvas_width;
  raster.height = info.canvas_height;
  raster.channels = 4;
  const std::size_t frame_bytes = static_cast<std::size_t>(frame_pixels) * 4;
  raster.pixels.reserve(frame_bytes * info.frame_count);
  raster.frames = 0;
  while (WebPAnimDecoderHasMoreFrames(decoder.get()) != 0) {
    std::uint8_t* frame = nullptr;
    int timestamp = 0;
    if (WebPAnimDecoderGetNext(decoder.get(), &frame, &timestamp) == 0 || frame == nullptr) {
      fail(ErrorCode::Format, kWebpFunction, source,
           "corrupt WebP animation frame " + std::to_string(raster.frames));
    }
    raster.pixels.insert(raster.pixels.end(), frame, frame + frame_bytes);
    ++raster.frames;
  }
  if (raster.frames == 0)
    fail(ErrorCode::Format, kWebpFunction, source, "the animation has no frame");
  convert_channels(raster, channels_for(options.mode, has_alpha ? 4 : 3));
  return raster;
}

}  // namespace

Raster decode_webp_bytes(std::span<const std::uint8_t> bytes, const DecodeOptions& options,
                         const std::string& source, PlaneSink* sink) {
  if (bytes.empty()) fail(ErrorCode::Format, kWebpFunction, source, "the data is empty");
  WebPBitstreamFeatures features{};
  if (WebPGetFeatures(bytes.data(), bytes.size(), &features) != VP8_STATUS_OK) {
    fail(ErrorCode::Unsupported, kWebpFunction, source, "not a readable WebP image");
  }
  if (features.has_animation) {
    Raster raster = decode_animation(bytes, options, source, features.has_alpha != 0);
    raster.exif_orientation = webp_orientation(bytes);
    return raster;
  }
  check_dimensions(kWebpFunction, source, features.width, features.height, options.max_pixels);
  Raster raster;
  raster.width = features.width;
  raster.height = features.height;
  const int wanted = channels_for(options.mode, features.has_alpha ? 4 : 3);
  raster.channels = wanted == 2 || wanted == 4 ? 4 : 3;
  const std::size_t size = raster.row_bytes() * static_cast<std::size_t>(raster.height);
  std::uint8_t* out = nullptr;
  raster.exif_orientation = webp_orientation(bytes);
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
    fail(ErrorCode::Format, kWebpFunction, source, "corrupt or truncated WebP data");
  if (!raster.in_sink) convert_channels(raster, wanted);
  return raster;
}

}  // namespace fp::image::detail
