// PNG encoding with libspng (no setjmp): zlib level 6 with adaptive filters
// by default, like libpng and torchvision.io.encode_png; `fast` is level 1,
// Z_RLE and adaptive filters, several times faster and on photographs no larger.
#include <spng.h>
#include <zlib.h>

#include <cstdlib>
#include <memory>

#include "encoded.h"
#include "flash_powder/image/io.h"
#include "messages.h"
#include "tensor_args.h"

namespace fp::image {

namespace {

struct ContextDeleter {
  void operator()(spng_ctx* context) const { spng_ctx_free(context); }
};

void check(int code, const char* what) {
  if (code != 0)
    detail::fail("encode_png", "the image", std::string(what) + ": " + spng_strerror(code));
}

std::uint8_t color_type(int channels) {
  switch (channels) {
    case 1:
      return SPNG_COLOR_TYPE_GRAYSCALE;
    case 2:
      return SPNG_COLOR_TYPE_GRAYSCALE_ALPHA;
    case 3:
      return SPNG_COLOR_TYPE_TRUECOLOR;
    default:
      return SPNG_COLOR_TYPE_TRUECOLOR_ALPHA;
  }
}

}  // namespace

Tensor encode_png(TensorView image, const PngOptions& options) {
  static constexpr int channels[] = {1, 2, 3, 4};
  if (options.compression_level < 0 || options.compression_level > 9) {
    detail::fail("encode_png", "the options",
                 "compression_level " + std::to_string(options.compression_level) +
                     " is not between 0 and 9");
  }
  const Tensor pixels = detail::interleaved(image, "encode_png", channels, true);
  std::unique_ptr<spng_ctx, ContextDeleter> context(spng_ctx_new(SPNG_CTX_ENCODER));
  if (!context) detail::fail("encode_png", "the image", "out of memory");
  spng_ctx* ctx = context.get();
  check(spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1), "cannot encode to memory");
  spng_ihdr ihdr{};
  ihdr.width = static_cast<std::uint32_t>(pixels.size(1));
  ihdr.height = static_cast<std::uint32_t>(pixels.size(0));
  ihdr.bit_depth = pixels.dtype() == DType::U16 ? 16 : 8;
  ihdr.color_type = color_type(static_cast<int>(pixels.size(2)));
  check(spng_set_ihdr(ctx, &ihdr), "bad image header");
  const int level = options.fast ? 1 : options.compression_level;
  check(spng_set_option(ctx, SPNG_IMG_COMPRESSION_LEVEL, level), "bad compression level");
  if (options.fast)
    check(spng_set_option(ctx, SPNG_IMG_COMPRESSION_STRATEGY, Z_RLE), "bad strategy");
  check(spng_set_option(ctx, SPNG_FILTER_CHOICE, SPNG_FILTER_CHOICE_ALL), "bad filter choice");
  // 16-bit samples go in host order; libspng writes them big-endian.
  const void* samples = ihdr.bit_depth == 16
                            ? static_cast<const void*>(pixels.data<std::uint16_t>().data())
                            : static_cast<const void*>(pixels.data<std::uint8_t>().data());
  check(spng_encode_image(ctx, samples, pixels.nbytes(), SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE),
        "cannot encode");
  std::size_t size = 0;
  int error = 0;
  std::unique_ptr<void, decltype(&std::free)> png(spng_get_png_buffer(ctx, &size, &error),
                                                  &std::free);
  check(error, "cannot encode");
  return detail::byte_tensor(png.get(), size);
}

}  // namespace fp::image
