// flash_powder's image codecs and resize on a 1080p photo, one thread: prints
// "case seconds" (the fastest of the repeats) for bench/run_image.sh, which
// sets them against torchvision.io, Pillow and OpenCV (bench/image_codecs.py).
//
// It first calls fp::keep_freed_memory(), as a program that decodes image
// after image should (the README says why): with glibc's defaults the memory
// of each freed 6 MB result goes back to the system and the next decode faults
// its pages in again (about 600 page faults a decode here), which a Python
// process, whose own frees have long raised glibc's thresholds, does not pay.
// FP_BENCH_DEFAULT_MALLOC=1 leaves glibc's defaults, to measure that.
#include <flash_powder/flash_powder.h>
#include <flash_powder/image/image.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

namespace {

namespace image = fp::image;

// argv[2], when given, names the one case to run (for a profiler).
const char* only = nullptr;

void measure(const char* name, int repeats, const std::function<void()>& body) {
  if (only != nullptr && std::string(only) != name) return;
  body();  // warm: allocations, first-call lookups
  double best = 1e30;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    body();
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count());
  }
  std::printf("%s %.6f\n", name, best);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr,
                 "usage: bench_image_codecs DIR [CASE] (DIR holds photo.jpg, photo.png, "
                 "photo.webp, photo.gif, photo.avif, animation.gif, animation.webp; CASE runs "
                 "one case only)\n");
    return 2;
  }
  if (argc == 3) only = argv[2];
  if (std::getenv("FP_BENCH_DEFAULT_MALLOC") == nullptr) fp::keep_freed_memory();
  const std::string dir = argv[1];
  const fp::Tensor jpeg = image::read_file(dir + "/photo.jpg");
  const fp::Tensor png = image::read_file(dir + "/photo.png");
  const fp::Tensor webp = image::read_file(dir + "/photo.webp");
  const fp::Tensor gif = image::read_file(dir + "/photo.gif");
  const fp::Tensor animated_gif = image::read_file(dir + "/animation.gif");
  const fp::Tensor animated_webp = image::read_file(dir + "/animation.webp");
  const fp::Tensor avif = image::read_file(dir + "/photo.avif");
  const fp::Tensor pixels = image::decode_png(png);
  // torchvision's decode result: [C, H, W] over interleaved (H, W, C) memory,
  // what libjpeg reads as it is. encode_jpeg hands both sides this layout.
  const fp::Tensor interleaved = pixels.permute({1, 2, 0}).contiguous();
  const fp::TensorView channels_last = interleaved.permute({2, 0, 1});
  const int n = 30;  // the fastest of many: the machine is shared
  // The decode cases return torchvision's layout ([C, H, W] over interleaved
  // rows); decode_jpeg_chw the contiguous planes both sides can be asked for.
  const image::DecodeOptions as_torchvision{.interleaved = true};
  measure("decode_jpeg", n, [&] { image::decode_jpeg(jpeg, as_torchvision); });
  measure("decode_jpeg_chw", n, [&] { image::decode_jpeg(jpeg); });
  measure("decode_png", n, [&] { image::decode_png(png, as_torchvision); });
  measure("decode_webp", n, [&] { image::decode_webp(webp, as_torchvision); });
  // Every frame, as Pillow composes them, in RGB (torchvision's decode_gif).
  measure("decode_gif", n, [&] { image::decode_gif(gif, as_torchvision); });
  measure("decode_gif_animated", n, [&] { image::decode_gif(animated_gif, as_torchvision); });
  measure("decode_webp_animated", n, [&] { image::decode_webp(animated_webp, as_torchvision); });
  measure("decode_avif", n, [&] { image::decode_avif(avif, as_torchvision); });
  measure("encode_jpeg", n, [&] { image::encode_jpeg(channels_last); });
  measure("encode_jpeg_chw", n, [&] { image::encode_jpeg(pixels); });
  measure("encode_png", 5, [&] { image::encode_png(pixels); });
  measure("encode_png_fast", 5, [&] { image::encode_png(pixels, {.fast = true}); });
  measure("resize_bilinear", n, [&] { image::resize(pixels, 540, 960); });
  measure("resize_bilinear_chw", n, [&] { image::resize(pixels, 540, 960); });
  if (only != nullptr) return 0;
  std::printf("size_encode_png %lld\n", static_cast<long long>(image::encode_png(pixels).numel()));
  std::printf("size_encode_png_fast %lld\n",
              static_cast<long long>(image::encode_png(pixels, {.fast = true}).numel()));
  return 0;
}
