// JPEG encoding with TurboJPEG: 4:2:0 (gray for one channel) and the
// accurate integer DCT (TJFLAG_ACCURATEDCT; TurboJPEG's default is the fast
// one), which at the same quality is byte for byte what Pillow and
// torchvision.io.encode_jpeg write.
#include <turbojpeg.h>

#include <memory>

#include "encoded.h"
#include "flash_powder/image/io.h"
#include "messages.h"
#include "tensor_args.h"

namespace fp::image {

namespace {

struct HandleDeleter {
  void operator()(void* handle) const { tjDestroy(handle); }
};

}  // namespace

Tensor encode_jpeg(TensorView image, const JpegOptions& options) {
  static constexpr int channels[] = {1, 3};
  if (options.quality < 1 || options.quality > 100) {
    detail::fail(ErrorCode::BadArgument, "encode_jpeg", "the options",
                 "quality " + std::to_string(options.quality) + " is not between 1 and 100");
  }
  const Tensor pixels = detail::interleaved(image, "encode_jpeg", channels);
  const bool gray = pixels.size(2) == 1;
  std::unique_ptr<void, HandleDeleter> handle(tjInitCompress());
  if (!handle)
    detail::fail(ErrorCode::BadArgument, "encode_jpeg", "the image", tjGetErrorStr2(nullptr));
  unsigned char* jpeg = nullptr;
  unsigned long size = 0;
  const int width = static_cast<int>(pixels.size(1));
  const int height = static_cast<int>(pixels.size(0));
  const int failed =
      tjCompress2(handle.get(), pixels.data<std::uint8_t>().data(), width, 0, height,
                  gray ? TJPF_GRAY : TJPF_RGB, &jpeg, &size, gray ? TJSAMP_GRAY : TJSAMP_420,
                  options.quality, TJFLAG_ACCURATEDCT);
  std::unique_ptr<unsigned char, decltype(&tjFree)> owned(jpeg, &tjFree);
  if (failed != 0)
    detail::fail(ErrorCode::BadArgument, "encode_jpeg", "the image", tjGetErrorStr2(handle.get()));
  return detail::byte_tensor(owned.get(), size);
}

}  // namespace fp::image
