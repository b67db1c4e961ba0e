// Decoding: every corpus file in every read mode equals what Pillow decodes
// (tests/image/make_corpus.py), generated files and images shipped by others.
#include "corpus.h"

namespace {

using fp::image::DecodeOptions;
using fp::image::ImageReadMode;
using fp_test::image::same_pixels;

const std::pair<const char*, ImageReadMode> kModes[] = {{"Unchanged", ImageReadMode::Unchanged},
                                                        {"Gray", ImageReadMode::Gray},
                                                        {"GrayAlpha", ImageReadMode::GrayAlpha},
                                                        {"RGB", ImageReadMode::RGB},
                                                        {"RGBA", ImageReadMode::RGBA}};

/// The layout DecodeOptions::interleaved asks for: [C, H, W] over (H, W, C)
/// memory, and for more than one channel not the planar one.
::testing::AssertionResult is_interleaved(const fp::Tensor& image) {
  if (!image.permute({1, 2, 0}).is_contiguous()) {
    return ::testing::AssertionFailure() << "permute({1, 2, 0}) is not contiguous";
  }
  if (image.sizes()[0] > 1 && image.is_contiguous()) {
    return ::testing::AssertionFailure() << "planar, not interleaved";
  }
  return ::testing::AssertionSuccess();
}

/// Decodes every case of `kind` whose name starts with `prefix` in every
/// mode, planar and interleaved.
int check_cases(const std::string& kind, const std::string& prefix) {
  int compared = 0;
  for (const auto& c : fp_test::image::cases()) {
    if (c.kind != kind || c.name.rfind(prefix, 0) != 0) continue;
    const auto expected = fp_test::image::expected(c);
    for (const auto& [mode_name, mode] : kModes) {
      // Pillow cannot say what a 16-bit colour PNG is Unchanged (make_corpus.py).
      if (!expected.count(mode_name)) continue;
      SCOPED_TRACE(c.name + " (" + c.file.string() + ") mode " + mode_name);
      const fp::Tensor image = fp::image::read_image(c.file, {.mode = mode});
      EXPECT_TRUE(same_pixels(image, expected.at(mode_name)));
      EXPECT_TRUE(image.is_contiguous());  // EXIF-rotated ones too, as torchvision's
      const fp::Tensor rows = fp::image::read_image(c.file, {.mode = mode, .interleaved = true});
      EXPECT_TRUE(is_interleaved(rows));
      EXPECT_TRUE(same_pixels(rows.contiguous(), expected.at(mode_name)));
      ++compared;
    }
    if (expected.count("RGB_as_stored")) {
      SCOPED_TRACE(c.name + " without EXIF orientation");
      for (const bool interleaved : {false, true}) {
        const fp::Tensor image = fp::image::read_image(c.file, {.mode = ImageReadMode::RGB,
                                                                .apply_exif_orientation = false,
                                                                .interleaved = interleaved});
        EXPECT_TRUE(same_pixels(image.contiguous(), expected.at("RGB_as_stored")));
      }
    }
  }
  return compared;
}

TEST(ImageDecode, JpegEqualsPillow) {
  EXPECT_GE(check_cases("generated", "jpeg_"), 5 * 20);
}

TEST(ImageDecode, PngEqualsPillow) {
  EXPECT_GE(check_cases("generated", "png_"), 5 * 20);
}

TEST(ImageDecode, WebpEqualsPillow) {
  EXPECT_EQ(check_cases("generated", "webp_"), 5 * 4);
}

TEST(ImageDecode, ImagesNobodyHereMadeEqualPillow) {
  EXPECT_GE(check_cases("found", ""), 5 * 20);
}

TEST(ImageDecode, DecodeFunctionsAgreeWithReadImage) {
  for (const char* name : {"jpeg_q75_420.jpg", "png_RGBA.png", "webp_lossy.webp"}) {
    SCOPED_TRACE(name);
    const fp::Tensor bytes = fp::image::read_file(fp_test::image::corpus_file(name));
    const fp::Tensor read = fp::image::read_image(fp_test::image::corpus_file(name));
    EXPECT_TRUE(same_pixels(fp::image::decode_image(bytes), read));
    const std::string file = name;
    if (file.ends_with(".jpg")) {
      EXPECT_TRUE(same_pixels(fp::image::decode_jpeg(bytes), read));
    } else if (file.ends_with(".png")) {
      EXPECT_TRUE(same_pixels(fp::image::decode_png(bytes), read));
    } else {
      EXPECT_TRUE(same_pixels(fp::image::decode_webp(bytes), read));
    }
  }
}

TEST(ImageDecode, FloatDtypeIsFloatify) {
  const auto path = fp_test::image::corpus_file("png_RGB.png");
  const fp::Tensor pixels = fp::image::read_image(path);
  const fp::Tensor floats = fp::image::read_image(path, {.dtype = fp::DType::F32});
  EXPECT_EQ(floats.dtype(), fp::DType::F32);
  EXPECT_TRUE(floats.is_equal(fp::image::floatify(pixels)));
}

TEST(ImageDecode, InterleavedDecodesKeepTheirLayoutThroughDtypeAndDecodeFunctions) {
  for (const char* name : {"jpeg_q75_420.jpg", "png_RGB.png", "webp_lossy.webp"}) {
    SCOPED_TRACE(name);
    const auto path = fp_test::image::corpus_file(name);
    const fp::Tensor planar = fp::image::read_image(path);
    const fp::Tensor floats =
        fp::image::read_image(path, {.dtype = fp::DType::F32, .interleaved = true});
    EXPECT_EQ(floats.dtype(), fp::DType::F32);
    EXPECT_TRUE(floats.is_equal(fp::image::floatify(planar)));
    const fp::Tensor bytes = fp::image::read_file(path);
    const fp::Tensor decoded = fp::image::decode_image(bytes, {.interleaved = true});
    EXPECT_TRUE(is_interleaved(decoded));
    EXPECT_TRUE(same_pixels(decoded.contiguous(), planar));
  }
}

TEST(ImageDecode, FormatIsToldByTheBytesNotTheName) {
  const auto renamed = std::filesystem::temp_directory_path() / "fp_image_png_named.jpg";
  std::filesystem::copy_file(fp_test::image::corpus_file("png_RGB.png"), renamed,
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_TRUE(same_pixels(fp::image::read_image(renamed),
                          fp::image::read_image(fp_test::image::corpus_file("png_RGB.png"))));
  std::filesystem::remove(renamed);
}

TEST(ImageDecode, SixteenBitStaysSixteenBitOnlyUnchanged) {
  const auto path = fp_test::image::corpus_file("png_rgb16.png");
  EXPECT_EQ(fp::image::read_image(path).dtype(), fp::DType::U16);
  EXPECT_EQ(fp::image::read_image(path, {.mode = ImageReadMode::RGB}).dtype(), fp::DType::U8);
}

}  // namespace
