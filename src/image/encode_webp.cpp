// WebP encoding with libwebp's simple API (lossy at a quality, or lossless).
#include <webp/encode.h>

#include <memory>

#include "encoded.h"
#include "flash_powder/image/io.h"
#include "messages.h"
#include "tensor_args.h"

namespace fp::image {

Tensor encode_webp(TensorView image, const WebpOptions& options) {
  static constexpr int channels[] = {3, 4};
  if (!(options.quality >= 0 && options.quality <= 100)) {
    detail::fail(ErrorCode::BadArgument, "encode_webp", "the options",
                 "quality " + std::to_string(static_cast<double>(options.quality)).substr(0, 6) +
                     " is not between 0 and 100");
  }
  const Tensor pixels = detail::interleaved(image, "encode_webp", channels);
  const bool alpha = pixels.size(2) == 4;
  const int width = static_cast<int>(pixels.size(1));
  const int height = static_cast<int>(pixels.size(0));
  const int stride = width * static_cast<int>(pixels.size(2));
  const std::uint8_t* data = pixels.data<std::uint8_t>().data();
  std::uint8_t* webp = nullptr;
  std::size_t size = 0;
  if (options.lossless) {
    size = alpha ? WebPEncodeLosslessRGBA(data, width, height, stride, &webp)
                 : WebPEncodeLosslessRGB(data, width, height, stride, &webp);
  } else {
    size = alpha ? WebPEncodeRGBA(data, width, height, stride, options.quality, &webp)
                 : WebPEncodeRGB(data, width, height, stride, options.quality, &webp);
  }
  std::unique_ptr<std::uint8_t, decltype(&WebPFree)> owned(webp, &WebPFree);
  if (size == 0) {
    detail::fail(ErrorCode::BadArgument, "encode_webp", "the image",
                 "libwebp could not encode it (WebP images are at most 16383 pixels a side)");
  }
  return detail::byte_tensor(owned.get(), size);
}

}  // namespace fp::image
