// encode_png chooses each row's filter itself (src/image/png_filter.h) and
// hands libpng the choice. The file must be byte for byte what libpng writes
// when it searches by itself, as torchvision.io.encode_png lets it: that
// reference is libpng called here with its defaults.
#include <png.h>
#include <zlib.h>

#include <csetjmp>
#include <cstdint>
#include <vector>

#include "../../src/image/png_filter.h"
#include "corpus.h"

namespace {

namespace image = fp::image;
using fp_test::image::corpus_file;

struct Output {
  std::vector<std::uint8_t> bytes;
};

extern "C" void append(png_structp png, png_bytep data, png_size_t length) {
  auto* out = static_cast<Output*>(png_get_io_ptr(png));
  out->bytes.insert(out->bytes.end(), data, data + length);
}

extern "C" void flush(png_structp) {}

// C-style: nothing with a destructor lives in the frame setjmp arms.
bool write_rows(png_structp png, png_infop info, const std::uint8_t* rows, std::size_t row_bytes,
                std::uint32_t width, std::uint32_t height, int color_type, int level, bool fast) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_IHDR(png, info, width, height, 8, color_type, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_set_compression_level(png, level);
  if (fast) {  // PngOptions::fast's settings (src/image/encode_png.cpp)
    png_set_compression_strategy(png, Z_RLE);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_AVG | PNG_FILTER_PAETH);
    png_set_compression_buffer_size(png, 1 << 18);
  }
  png_write_info(png, info);
  for (std::uint32_t y = 0; y < height; ++y)
    png_write_row(png, rows + y * row_bytes);
  png_write_end(png, info);
  return true;
}

/// libpng's own PNG of an 8-bit [C, H, W] image, its filter search included.
fp::Tensor libpng_by_itself(const fp::Tensor& image, const image::PngOptions& options) {
  const fp::Tensor rows = image.permute({1, 2, 0}).contiguous();
  const auto channels = static_cast<int>(image.sizes()[0]);
  const auto height = static_cast<std::uint32_t>(image.sizes()[1]);
  const auto width = static_cast<std::uint32_t>(image.sizes()[2]);
  const int color_types[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                             PNG_COLOR_TYPE_RGB_ALPHA};
  Output out;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  png_set_write_fn(png, &out, append, flush);
  const int level = options.fast ? 1 : options.compression_level;
  const bool written =
      write_rows(png, info, rows.data<std::uint8_t>().data(), std::size_t{width} * channels, width,
                 height, color_types[channels - 1], level, options.fast);
  png_destroy_write_struct(&png, &info);
  EXPECT_TRUE(written);
  fp::Tensor bytes = fp::empty({static_cast<std::int64_t>(out.bytes.size())}, fp::DType::U8);
  std::copy(out.bytes.begin(), out.bytes.end(), bytes.data_mut<std::uint8_t>().begin());
  return bytes;
}

::testing::AssertionResult same_file_as_libpng(const fp::Tensor& image,
                                               const image::PngOptions& options) {
  const fp::Tensor ours = image::encode_png(image, options);
  const fp::Tensor theirs = libpng_by_itself(image, options);
  if (ours.is_equal(theirs)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << ours.numel() << " bytes, libpng by itself wrote " << theirs.numel();
}

const image::PngOptions kOptions[] = {
    {}, {.compression_level = 1}, {.compression_level = 9}, {.fast = true}};

TEST(PngFilterChoice, FilesAreLibpngsOwnForEveryKindOfImage) {
#if defined(__x86_64__)
  // Where AVX2 exists the choice is made here, not left to libpng.
  EXPECT_EQ(image::detail::png_filter_choice_available(), __builtin_cpu_supports("avx2") != 0);
#endif
  std::vector<std::pair<std::string, fp::Tensor>> images;
  for (const char* name : {"png_L.png", "png_LA.png", "png_RGB.png", "png_RGBA.png",
                           "png_1001x777.png", "encode_rgb.png", "encode_gray.png"}) {
    images.emplace_back(name, image::read_image(corpus_file(name)));
  }
  fp::Generator generator(7);
  for (const std::int64_t channels : {1, 2, 3, 4}) {
    // Noise (every filter loses to None on some rows), a ramp (Sub or Up
    // win), and sizes around the 32-byte steps, down to two pixels wide.
    for (const auto& [height, width] : std::vector<std::pair<std::int64_t, std::int64_t>>{
             {9, 2}, {5, 11}, {7, 33}, {16, 67}, {40, 257}}) {
      images.emplace_back("noise",
                          fp::randint(0, 256, {channels, height, width}, generator, fp::DType::U8));
      const fp::Tensor ramp =
          fp::arange(height * width * channels).remainder(251).to(fp::DType::U8);
      images.emplace_back("ramp", ramp.reshape({channels, height, width}));
    }
  }
  images.emplace_back("flat", fp::full({3, 20, 50}, 77, fp::DType::U8));
  images.emplace_back("one row", fp::randint(0, 256, {3, 1, 50}, generator, fp::DType::U8));
  images.emplace_back("one column", fp::randint(0, 256, {3, 50, 1}, generator, fp::DType::U8));
  for (const auto& [name, pixels] : images) {
    for (const image::PngOptions& options : kOptions) {
      SCOPED_TRACE(name + " " + std::to_string(pixels.sizes()[0]) + "x" +
                   std::to_string(pixels.sizes()[1]) + "x" + std::to_string(pixels.sizes()[2]) +
                   " level " + std::to_string(options.compression_level) +
                   (options.fast ? " fast" : ""));
      EXPECT_TRUE(same_file_as_libpng(pixels, options));
    }
  }
}

/// The choice itself against the rule in png_write_find_filter, on rows
/// built so that each filter wins in turn, and ties go to the earlier one.
TEST(PngFilterChoice, PicksTheSmallestSumAndTheEarlierOnATie) {
  namespace detail = image::detail;
  const std::vector<std::uint8_t> zeros(64, 0);
  std::vector<std::uint8_t> row(64, 0);
  // All zeros: every sum is 0, None wins the tie.
  EXPECT_EQ(detail::choose_png_filter(row.data(), zeros.data(), 64, 3, PNG_ALL_FILTERS),
            PNG_FILTER_NONE);
  // Among Average and Paeth only, a tie goes to Average.
  EXPECT_EQ(
      detail::choose_png_filter(row.data(), zeros.data(), 64, 3, PNG_FILTER_AVG | PNG_FILTER_PAETH),
      PNG_FILTER_AVG);
  // A constant row of 100 above zeros: None sums 64 * 100, Sub only the first pixel's.
  std::fill(row.begin(), row.end(), 100);
  EXPECT_EQ(detail::choose_png_filter(row.data(), zeros.data(), 64, 3, PNG_ALL_FILTERS),
            PNG_FILTER_SUB);
  // The same row under an equal one: Up's residuals are all zero.
  EXPECT_EQ(detail::choose_png_filter(row.data(), row.data(), 64, 3, PNG_ALL_FILTERS),
            PNG_FILTER_UP);
  // Large values (weights of 128 and more as signed bytes) count as 256 - v.
  std::fill(row.begin(), row.end(), 200);
  EXPECT_EQ(
      detail::choose_png_filter(row.data(), zeros.data(), 64, 4, PNG_FILTER_NONE | PNG_FILTER_UP),
      PNG_FILTER_NONE);
}

}  // namespace
