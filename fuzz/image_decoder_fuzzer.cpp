// libFuzzer target for one image decoder (FP_FUZZ_DECODER: jpeg, png, webp,
// gif or avif): any bytes must decode or throw fp::Error, in every read mode; never
// crash, leak, hang or touch memory it does not own (ASan, UBSan and
// libstdc++'s assertions watch). A decoded image must have the size its
// header promised (every frame of an animation), in the channels the mode
// asks for.
//
// Built by scripts/fuzz-image from the decoders' sources and the system's
// codecs, without libtorch: the decoders produce a Raster, not a tensor.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "../src/image/raster.h"
#include "flash_powder/base/error.h"

#ifndef FP_FUZZ_DECODER
#error \
    "define FP_FUZZ_DECODER as decode_jpeg_bytes, decode_png_bytes, decode_webp_bytes, decode_gif_bytes or decode_avif_bytes"
#endif

#ifndef FP_FUZZ_MAX_PIXELS
#define FP_FUZZ_MAX_PIXELS (1u << 22)
#endif

namespace {

namespace image = fp::image;

constexpr image::ImageReadMode kModes[] = {
    image::ImageReadMode::Unchanged, image::ImageReadMode::Gray, image::ImageReadMode::GrayAlpha,
    image::ImageReadMode::RGB, image::ImageReadMode::RGBA};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  // The first byte picks the mode; the rest is the file.
  const image::ImageReadMode mode = kModes[data[0] % 5];
  const std::span<const std::uint8_t> bytes(data + 1, size - 1);
  // A lower bomb limit than the default keeps the fuzzer within its memory
  // (and, for GIF, whose work grows with the canvas, its speed).
  const image::DecodeOptions options{.mode = mode, .max_pixels = FP_FUZZ_MAX_PIXELS};
  try {
    const image::detail::Raster raster = image::detail::FP_FUZZ_DECODER(bytes, options, "fuzz");
    const std::size_t expected = raster.pixel_count() * raster.channels * (raster.bits / 8);
    if (raster.pixels.size() != expected || raster.height <= 0 || raster.width <= 0 ||
        raster.frames <= 0 || raster.exif_orientation < 1 || raster.exif_orientation > 8 ||
        (mode != image::ImageReadMode::Unchanged &&
         raster.channels != image::detail::channels_for(mode, 0))) {
      std::fprintf(stderr, "decoded %zu bytes for %lldx%lldx%d\n", raster.pixels.size(),
                   static_cast<long long>(raster.height), static_cast<long long>(raster.width),
                   raster.channels);
      std::abort();
    }
  } catch (const fp::Error&) {
  }
  return 0;
}
