// Encoding: JPEG byte-identical to Pillow (accurate DCT, 4:2:0), PNG and
// lossless WebP round trips exact, writes atomic, bad input refused.
#include "../../src/image/tensor_args.h"
#include "corpus.h"
#include "support/expect_error.h"

namespace {

namespace image = fp::image;
using fp_test::image::corpus_file;
using fp_test::image::same_pixels;

::testing::AssertionResult same_bytes(const fp::Tensor& actual, const std::filesystem::path& file) {
  const fp::Tensor wanted = image::read_file(file);
  if (actual.is_equal(wanted)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << actual.numel() << " bytes, Pillow wrote " << wanted.numel() << " to " << file;
}

TEST(ImageEncode, JpegIsByteIdenticalToPillow) {
  for (const char* name : {"rgb", "rgb_1001x777", "gray"}) {
    SCOPED_TRACE(name);
    const fp::Tensor pixels =
        image::read_image(corpus_file("encode_" + std::string(name) + ".png"));
    EXPECT_TRUE(same_bytes(image::encode_jpeg(pixels),
                           corpus_file("encode_" + std::string(name) + ".pillow_q75.jpg")));
    EXPECT_TRUE(same_bytes(image::encode_jpeg(pixels, {.quality = 90}),
                           corpus_file("encode_" + std::string(name) + ".pillow_q90.jpg")));
  }
}

TEST(ImageEncode, PngRoundTripsExactly) {
  for (const char* name :
       {"png_L.png", "png_LA.png", "png_RGB.png", "png_RGBA.png", "png_gray16.png", "png_ga16.png",
        "png_rgb16.png", "png_rgba16.png", "png_1001x777.png"}) {
    SCOPED_TRACE(name);
    const fp::Tensor pixels = image::read_image(corpus_file(name));
    for (const image::PngOptions options :
         {image::PngOptions{}, image::PngOptions{.compression_level = 0},
          image::PngOptions{.compression_level = 9}, image::PngOptions{.fast = true}}) {
      EXPECT_TRUE(same_pixels(image::decode_png(image::encode_png(pixels, options)), pixels));
    }
  }
}

TEST(ImageEncode, FastPngIsNoLargerOnAPhoto) {
  const fp::Tensor photo = image::read_image(corpus_file("encode_rgb_1001x777.png"));
  const auto level6 = image::encode_png(photo).numel();
  const auto fast = image::encode_png(photo, {.fast = true}).numel();
  EXPECT_LE(fast, level6 * 102 / 100) << "fast " << fast << " bytes, level 6 " << level6;
}

TEST(ImageEncode, WebpLosslessRoundTripsAndLossyIsClose) {
  for (const char* name : {"png_RGB.png", "png_RGBA.png"}) {
    SCOPED_TRACE(name);
    const fp::Tensor pixels = image::read_image(corpus_file(name));
    EXPECT_TRUE(
        same_pixels(image::decode_webp(image::encode_webp(pixels, {.lossless = true})), pixels));
    const fp::Tensor lossy = image::decode_webp(image::encode_webp(pixels, {.quality = 95}));
    const double error =
        (lossy.to(fp::DType::F32) - pixels.to(fp::DType::F32)).abs().mean().item<double>();
    EXPECT_LT(error, 6.0);
  }
}

TEST(ImageEncode, JpegRoundTripIsClose) {
  const fp::Tensor pixels = image::read_image(corpus_file("encode_rgb.png"));
  const fp::Tensor decoded = image::decode_jpeg(image::encode_jpeg(pixels, {.quality = 95}));
  const double error =
      (decoded.to(fp::DType::F32) - pixels.to(fp::DType::F32)).abs().mean().item<double>();
  EXPECT_LT(error, 8.0);  // noisy synthetic colour through 4:2:0 chroma
}

TEST(ImageEncode, WritesAreAtomicAndReadBack) {
  const auto dir = std::filesystem::temp_directory_path() / "fp_image_writes";
  std::filesystem::create_directories(dir);
  const fp::Tensor pixels = image::read_image(corpus_file("png_RGBA.png"));
  image::write_png(pixels, dir / "a.png");
  EXPECT_TRUE(same_pixels(image::read_image(dir / "a.png"), pixels));
  const fp::Tensor rgb = image::read_image(corpus_file("png_RGB.png"));
  image::write_jpeg(rgb, dir / "a.png");  // replaces the file
  EXPECT_EQ(image::read_file(dir / "a.png").i(fp::slice(0, 3)).to_owned().to_vector<std::uint8_t>(),
            (std::vector<std::uint8_t>{0xFF, 0xD8, 0xFF}));
  image::write_webp(pixels, dir / "b.webp", {.lossless = true});
  EXPECT_TRUE(same_pixels(image::read_image(dir / "b.webp"), pixels));
  // A failed encode leaves the old file and no temporary behind.
  EXPECT_THROW(image::write_jpeg(pixels, dir / "a.png"), fp::Error);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 2);
  EXPECT_FP_ERROR(fp::ErrorCode::Io,
                  "fp::image::write_png: /nonexistent/x.png: cannot create a temporary file",
                  image::write_png(pixels, "/nonexistent/x.png"));
  std::filesystem::remove_all(dir);
}

TEST(ImageEncode, BadImagesAreRefused) {
  const fp::Tensor rgba = fp::zeros({4, 8, 8}, fp::DType::U8);
  const fp::Tensor floats = fp::zeros({3, 8, 8});
  const fp::Tensor flat = fp::zeros({8, 8}, fp::DType::U8);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::image::encode_jpeg: the image: 4 channels; this encoder takes 1, 3 channels",
                  image::encode_jpeg(rgba));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "expected a [C, H, W] uint8 CPU tensor, got a 3-D float32",
                  image::encode_jpeg(floats));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "expected a [C, H, W] uint8 or uint16 CPU tensor, got a 2-D uint8",
                  image::encode_png(flat));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::image::encode_webp: the image: 1 channels; this encoder takes 3, 4 channels",
                  image::encode_webp(fp::zeros({1, 8, 8}, fp::DType::U8)));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "zero height or width",
                  image::encode_png(fp::zeros({3, 0, 8}, fp::DType::U8)));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "quality 0 is not between 1 and 100",
                  image::encode_jpeg(rgba.i(fp::slice(0, 3)), {.quality = 0}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "compression_level 10 is not between 0 and 9",
                  image::encode_png(rgba, {.compression_level = 10}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "quality 101.00 is not between 0 and 100",
                  image::encode_webp(rgba, {.quality = 101}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::image::encode_png: the image: the tensor is undefined",
                  image::encode_png(fp::Tensor()));
}

TEST(ImageEncode, NonContiguousImagesEncodeLikeContiguousOnes) {
  const fp::Tensor pixels = image::read_image(corpus_file("png_RGB.png"));
  const fp::TensorView flipped = pixels.transpose(1, 2);
  EXPECT_TRUE(same_pixels(image::decode_png(image::encode_png(flipped)), flipped.contiguous()));
}

// torchvision's decoders return [C, H, W] over interleaved (H, W, C) memory,
// which is what libjpeg, libpng and libwebp read: such an image reaches the
// codec as it is, with no copy, and encodes to the same bytes.
TEST(ImageEncode, ChannelsLastImagesReachTheCodecWithoutACopy) {
  static constexpr int rgb[] = {3};
  const fp::Tensor pixels = image::read_image(corpus_file("encode_rgb.png"));
  fp::Tensor hwc = pixels.permute({1, 2, 0}).contiguous();
  fp::Tensor shared;
  {
    const fp::TensorView channels_last = hwc.permute({2, 0, 1});
    shared = image::detail::interleaved(channels_last, "encode_jpeg", rgb);
    EXPECT_EQ(shared.data<std::uint8_t>().data(), hwc.data<std::uint8_t>().data());
    EXPECT_TRUE(
        same_bytes(image::encode_jpeg(channels_last), corpus_file("encode_rgb.pillow_q75.jpg")));
    EXPECT_TRUE(same_pixels(image::decode_png(image::encode_png(channels_last)), pixels));
  }

  // A contiguous [C, H, W] image is interleaved into memory of its own.
  const fp::Tensor copied = image::detail::interleaved(pixels, "encode_jpeg", rgb);
  EXPECT_NE(copied.data<std::uint8_t>().data(), pixels.data<std::uint8_t>().data());
  EXPECT_TRUE(copied.is_equal(hwc));

  // Sharing is copy-on-write: writing to the image afterwards leaves what was
  // shared as it was.
  const std::uint8_t before = shared.data<std::uint8_t>()[0];
  hwc.data_mut<std::uint8_t>()[0] = static_cast<std::uint8_t>(before + 1);
  EXPECT_EQ(shared.data<std::uint8_t>()[0], before);
  EXPECT_EQ(hwc.data<std::uint8_t>()[0], static_cast<std::uint8_t>(before + 1));
}

}  // namespace

namespace {

// The calls of docs/guide/image.md's tour on a corpus photo, compiled and run.
TEST(ImageReadme, Section) {
  const auto dir = std::filesystem::temp_directory_path() / "fp_image_readme";
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(corpus_file("jpeg_q75_420.jpg"), dir / "cat.jpg",
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::current_path(dir);
  {
    namespace image = fp::image;
    fp::Tensor photo = image::read_image("cat.jpg", {.mode = image::ImageReadMode::RGB});
    fp::Tensor small = image::resize(photo, 224, 224);
    fp::Tensor x = image::floatify(small);
    fp::Tensor overlay = image::draw_segmentation_masks(small, small.i(0).gt(128), {.alpha = 0.5});
    image::write_png(overlay, "overlay.png");
    image::save_image(fp::stack({x, 1.0 - x}), "row.png");
    EXPECT_TRUE(same_pixels(image::read_image("overlay.png"), overlay));
    EXPECT_EQ(image::read_image("row.png").size(2), 2 + 2 * (224 + 2));
  }
  std::filesystem::current_path(std::filesystem::temp_directory_path());
  std::filesystem::remove_all(dir);
}

}  // namespace
