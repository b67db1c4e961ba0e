// Hostile input: truncated, corrupt, empty, absurdly large, mislabelled and
// unsupported files all end in fp::Error naming the file and the problem, never
// a crash; valgrind.test_image runs the same under memcheck (no leak, no
// invalid read).
#include <iterator>
#include <random>
#include <span>
#include <string>
#include <utility>

#include "corpus.h"
#include "support/expect_error.h"

namespace {

namespace image = fp::image;

std::vector<std::uint8_t> bytes_of(const std::string& name) {
  const fp::Tensor data = image::read_file(fp_test::image::corpus_file(name));
  const auto span = data.data<std::uint8_t>();
  return {span.begin(), span.end()};
}

std::uint32_t crc32(const std::uint8_t* data, std::size_t size) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < size; ++i) {
    crc ^= data[i];
    for (int k = 0; k < 8; ++k)
      crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

void put_be32(std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) {
  for (int k = 0; k < 4; ++k)
    b[at + k] = static_cast<std::uint8_t>(v >> (24 - 8 * k));
}

const char* const kFiles[] = {"jpeg_q75_420.jpg",     "jpeg_progressive.jpg",
                              "jpeg_arithmetic.jpg",  "jpeg_cmyk.jpg",
                              "png_RGB.png",          "png_adam7.png",
                              "png_palette_trns.png", "png_rgb16.png",
                              "webp_lossy.webp",      "webp_lossless_alpha.webp",
                              "gif_pillow.gif",       "gif_pillow_animated.gif",
                              "avif_420.avif",        "avif_sequence.avif"};

TEST(ImageHostile, EveryTruncationThrows) {
  int refused = 0;
  for (const char* name : kFiles) {
    const auto whole = bytes_of(name);
    // A PNG without its IEND (12 bytes) and IDAT CRC still decodes, as in
    // Pillow, and so does a GIF without its trailer.
    const std::string file = name;
    const std::size_t tail = file.ends_with(".png") ? 30 : file.ends_with(".gif") ? 12 : 1;
    for (std::size_t cut : {std::size_t{1}, std::size_t{3}, std::size_t{12}, std::size_t{40},
                            whole.size() / 3, whole.size() / 2, whole.size() - tail}) {
      SCOPED_TRACE(std::string(name) + " cut to " + std::to_string(cut) + " bytes");
      const std::span<const std::uint8_t> part(whole.data(), cut);
      EXPECT_THROW(image::decode_image(part, {}, "truncated"), fp::Error);
      ++refused;
    }
  }
  EXPECT_EQ(refused, 98);
}

TEST(ImageHostile, TruncatedFileIsNamedInTheMessage) {
  const auto whole = bytes_of("jpeg_q75_420.jpg");
  const auto path = std::filesystem::temp_directory_path() / "fp_image_truncated.jpg";
  image::write_file(
      path, fp::tensor(std::vector<std::uint8_t>(whole.begin(), whole.begin() + whole.size() / 2)));
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "fp::image::decode_jpeg: " + path.string() + ": the JPEG data is truncated",
                  image::read_image(path));
  std::filesystem::remove(path);
}

// Flips a few bytes of each file 20 times and decodes: each try must give an
// fp::Error or an image of the right rank. Returns {errors, images}.
std::pair<int, int> decode_corrupted(std::span<const char* const> files, unsigned seed) {
  std::mt19937 random(seed);
  int errors = 0, images = 0;
  for (const char* name : files) {
    const auto whole = bytes_of(name);
    for (int trial = 0; trial < 20; ++trial) {
      auto bytes = whole;
      for (int k = 0; k < 1 + trial % 4; ++k) {
        bytes[16 + random() % (bytes.size() - 16)] ^= static_cast<std::uint8_t>(1 + random() % 255);
      }
      try {
        const fp::Tensor decoded = image::decode_image(bytes, {}, name);
        const std::string file = name;
        EXPECT_EQ(decoded.dim(),
                  file.ends_with("animated.gif") || file.ends_with("sequence.avif") ? 4 : 3);
        ++images;
      } catch (const fp::Error&) {
        ++errors;
      }
    }
  }
  return {errors, images};
}

TEST(ImageHostile, CorruptBytesGiveAnErrorOrAnImage) {
  const std::span<const char* const> files(kFiles, std::size(kFiles) - 2);  // all but AVIF
  const auto [errors, images] = decode_corrupted(files, 15);
  EXPECT_EQ(errors + images, 240);
  EXPECT_GT(errors, 20);  // CRCs and checksums catch most damage
}

// AVIF apart: the valgrind run leaves it out (tests/CMakeLists.txt says why);
// the other lanes and the AVIF fuzzer run it.
TEST(ImageHostile, CorruptAvifBytesGiveAnErrorOrAnImage) {
  const std::span<const char* const> files(kFiles + std::size(kFiles) - 2, 2);
  const auto [errors, images] = decode_corrupted(files, 16);
  EXPECT_EQ(errors + images, 40);
  EXPECT_GT(errors, 0);
}

TEST(ImageHostile, EmptyAndUnknownData) {
  const std::vector<std::uint8_t> empty;
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "not a JPEG, PNG, WebP, GIF or AVIF image (no bytes)",
                  image::decode_image(empty));
  const std::vector<std::uint8_t> bmp = {'B', 'M', 0x36, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "not a JPEG, PNG, WebP, GIF or AVIF image (first bytes 42 4d 36 00",
                  image::decode_image(bmp));
  const std::vector<std::uint8_t> gif = {'G', 'I', 'F', '8', '9', 'a', 1, 0, 1, 0};
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "fp::image::decode_gif: the image bytes: not a readable GIF",
                  image::decode_image(gif));
  // ISO base media files: told by their brand; HEIF refused as unsupported.
  const std::vector<std::uint8_t> avif = {0, 0, 0, 0x1c, 'f', 't', 'y', 'p', 'a', 'v', 'i', 'f'};
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "fp::image::decode_avif: the image bytes: not a readable AVIF",
                  image::decode_image(avif));
  const std::vector<std::uint8_t> heic = {0, 0, 0, 0x18, 'f', 't', 'y', 'p', 'h', 'e', 'i', 'c'};
  EXPECT_FP_ERROR(fp::ErrorCode::Unsupported, "HEIF/HEIC is not supported",
                  image::decode_image(heic));
  const std::vector<std::uint8_t> mp4 = {0, 0, 0, 0x18, 'f', 't', 'y', 'p', 'i', 's', 'o', 'm'};
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "not a JPEG, PNG, WebP, GIF or AVIF image",
                  image::decode_image(mp4));
  const std::vector<std::uint8_t> soi = {0xFF, 0xD8, 0xFF};
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "fp::image::decode_jpeg: the image bytes: not a readable JPEG",
                  image::decode_image(soi));
}

TEST(ImageHostile, DecompressionBombsAreRefusedBeforeAllocating) {
  auto png = bytes_of("png_RGB.png");  // IHDR: width at 16, height at 20, CRC at 29
  put_be32(png, 16, 100000);
  put_be32(png, 20, 100000);
  put_be32(png, 29, crc32(png.data() + 12, 17));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "100000x100000 = 10000000000 pixels, more than the limit of 178956970",
                  image::decode_image(png, {}, "bomb.png"));

  auto jpeg = bytes_of("jpeg_q75_420.jpg");
  std::size_t sof = 2;
  while (sof + 9 < jpeg.size() && !(jpeg[sof] == 0xFF && jpeg[sof + 1] == 0xC0))
    ++sof;
  ASSERT_LT(sof + 9, jpeg.size());
  jpeg[sof + 5] = jpeg[sof + 7] = 0xEA;  // 60000 x 60000
  jpeg[sof + 6] = jpeg[sof + 8] = 0x60;
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::image::decode_jpeg: bomb.jpg: the image is 60000x60000",
                  image::decode_image(jpeg, {}, "bomb.jpg"));

  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument, "raise DecodeOptions::max_pixels",
      image::read_image(fp_test::image::corpus_file("webp_lossy.webp"), {.max_pixels = 100}));
  EXPECT_NO_THROW(
      image::read_image(fp_test::image::corpus_file("webp_lossy.webp"), {.max_pixels = 45 * 67}));

  // An animation's frames count together: 4 frames of 53x37 need 4 * 1961 pixels.
  const auto animation = fp_test::image::corpus_file("gif_pillow_animated.gif");
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::image::decode_gif: " + animation.string() +
                      ": the animation has more than 3 frames of 53x37 pixels",
                  image::read_image(animation, {.max_pixels = 4 * 53 * 37 - 1}));
  EXPECT_NO_THROW(image::read_image(animation, {.max_pixels = 4 * 53 * 37}));
  // Found by fuzzing: an animated WebP's canvas is checked before libwebp's
  // animation decoder allocates it (VP8X: canvas width - 1 at 24, height - 1 at 27).
  auto webp = bytes_of("webp_animated_lossless.webp");
  ASSERT_EQ(std::string(webp.begin() + 12, webp.begin() + 16), "VP8X");
  for (const std::size_t at : {std::size_t{24}, std::size_t{27}}) {
    webp[at] = 0xFF;
    webp[at + 1] = 0x3F;
    webp[at + 2] = 0;
  }
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::image::decode_webp: bomb.webp: the image is 16384x16384 = 268435456 pixels",
                  image::decode_image(webp, {}, "bomb.webp"));
  const auto sequence = fp_test::image::corpus_file("avif_sequence.avif");
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "the sequence has 3 frames of 67x45 pixels",
                  image::read_image(sequence, {.max_pixels = 3 * 67 * 45 - 1}));
  EXPECT_NO_THROW(image::read_image(sequence, {.max_pixels = 3 * 67 * 45}));
}

// Found by fuzzing: a GIF frame outside the logical screen, disposed "to
// previous", is clipped away; the frames keep the screen's size.
TEST(ImageHostile, GifFrameOutsideTheScreenIsClipped) {
  const fp::Tensor frames =
      image::read_image(fp_test::image::corpus_file("gif_frame_outside_screen.gif"));
  ASSERT_EQ(frames.dim(), 4);
  EXPECT_EQ(frames.size(0), 3);
  EXPECT_EQ(frames.size(2), 7);
  EXPECT_EQ(frames.size(3), 9);
  EXPECT_TRUE(frames.i(1).is_equal(frames.i(0)));
  EXPECT_FALSE(frames.i(2).is_equal(frames.i(0)));
}

TEST(ImageHostile, ZeroSizedImagesAreRefused) {
  auto png = bytes_of("png_RGB.png");
  put_be32(png, 16, 0);
  put_be32(png, 29, crc32(png.data() + 12, 17));
  EXPECT_THROW(image::decode_image(png, {}, "zero.png"), fp::Error);
}

TEST(ImageHostile, MissingFilesAndDirectories) {
  EXPECT_FP_ERROR(fp::ErrorCode::Io,
                  "fp::image::read_image: /nonexistent/a.png: cannot open: No such file",
                  image::read_image("/nonexistent/a.png"));
  EXPECT_FP_ERROR(fp::ErrorCode::Io, "fp::image::read_file: /nonexistent/a.png: cannot open",
                  image::read_file("/nonexistent/a.png"));
  EXPECT_FP_ERROR(fp::ErrorCode::Io, "not a regular file",
                  image::read_image(std::filesystem::temp_directory_path()));
}

TEST(ImageHostile, DecodersRefuseTheWrongFormat) {
  const fp::Tensor png = image::read_file(fp_test::image::corpus_file("png_RGB.png"));
  const fp::Tensor jpeg = image::read_file(fp_test::image::corpus_file("jpeg_q75_420.jpg"));
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "fp::image::decode_jpeg: the image bytes: not a readable JPEG",
                  image::decode_jpeg(png));
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "fp::image::decode_png: the image bytes: not a readable PNG",
                  image::decode_png(jpeg));
  EXPECT_FP_ERROR(fp::ErrorCode::Unsupported,
                  "fp::image::decode_webp: the image bytes: not a readable WebP image",
                  image::decode_webp(png));
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format,
      "fp::image::decode_gif: the image bytes: not a readable GIF: Data is not in GIF format",
      image::decode_gif(png));
}

TEST(ImageHostile, EachDecoderCallsEmptyDataAFormatError) {
  const fp::Tensor empty = fp::zeros({0}, fp::DType::U8);
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "fp::image::decode_jpeg: the image bytes: the data is empty",
                  image::decode_jpeg(empty));
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "fp::image::decode_png: the image bytes: the data is empty",
                  image::decode_png(empty));
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "fp::image::decode_webp: the image bytes: the data is empty",
                  image::decode_webp(empty));
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "fp::image::decode_gif: the image bytes: the data is empty",
                  image::decode_gif(empty));
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "fp::image::decode_avif: the image bytes: the data is empty",
                  image::decode_avif(empty));
}

TEST(ImageHostile, DecodersRefuseTensorsThatAreNotBytes) {
  const fp::Tensor floats = fp::zeros({10});
  const fp::Tensor matrix = fp::zeros({2, 5}, fp::DType::U8);
  for (auto decode : {&image::decode_jpeg, &image::decode_png, &image::decode_webp,
                      &image::decode_gif, &image::decode_avif}) {
    EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected a 1-D uint8 CPU tensor of encoded bytes",
                    decode(floats, {}));
    EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "got a 2-D uint8 tensor", decode(matrix, {}));
  }
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::image::decode_image: the data: expected a 1-D uint8",
                  image::decode_image(floats));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::image::write_file: the data: expected a 1-D uint8",
                  image::write_file("/tmp/never_written", floats));
  EXPECT_FALSE(std::filesystem::exists("/tmp/never_written"));
}

}  // namespace

// A whole 8-bit RGB PNG is read by libpng, one without its IEND and last IDAT
// CRC by libspng (libpng refuses it): the same pixels, in every read mode.
TEST(ImageHostile, PngWithoutItsEndDecodesLikeTheWholeFile) {
  using fp_test::image::same_pixels;
  const auto whole = bytes_of("png_RGB.png");
  const std::span<const std::uint8_t> cut(whole.data(), whole.size() - 16);
  for (auto mode : {image::ImageReadMode::Unchanged, image::ImageReadMode::RGB,
                    image::ImageReadMode::RGBA, image::ImageReadMode::Gray}) {
    EXPECT_TRUE(same_pixels(image::decode_image(cut, {.mode = mode}, "cut"),
                            image::decode_image(whole, {.mode = mode}, "whole")));
  }
}
