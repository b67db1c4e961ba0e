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
/// memory ([N, C, H, W] over (N, H, W, C)), and for more than one channel not
/// the planar one.
::testing::AssertionResult is_interleaved(const fp::Tensor& image) {
  const bool frames = image.dim() == 4;
  const fp::TensorView rows = frames ? image.permute({0, 2, 3, 1}) : image.permute({1, 2, 0});
  if (!rows.is_contiguous()) {
    return ::testing::AssertionFailure() << "channels last is not contiguous";
  }
  if (image.size(-3) > 1 && image.is_contiguous()) {
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

std::vector<std::int64_t> shape(const fp::Tensor& t) {
  return {t.sizes().begin(), t.sizes().end()};
}

TEST(ImageDecode, JpegEqualsPillow) {
  EXPECT_GE(check_cases("generated", "jpeg_"), 5 * 20);
}

TEST(ImageDecode, PngEqualsPillow) {
  EXPECT_GE(check_cases("generated", "png_"), 5 * 20);
}

// Still images, EXIF and XMP orientation, animations composed by libwebp.
TEST(ImageDecode, WebpEqualsPillow) {
  EXPECT_EQ(check_cases("generated", "webp_"), 5 * 19);
}

// Subsamplings, alpha, gray, orientation stored as irot/imir, XMP, a sequence:
// libavif's pixels equal Pillow's AVIF plugin's in every mode.
TEST(ImageDecode, AvifEqualsPillow) {
  EXPECT_EQ(check_cases("generated", "avif_"), 5 * 15);
  const fp::Tensor bytes = fp::image::read_file(fp_test::image::corpus_file("avif_sequence.avif"));
  EXPECT_EQ(shape(fp::image::decode_avif(bytes)), (std::vector<std::int64_t>{3, 3, 45, 67}));
}

// Orientation where Pillow's getexif() finds it: WebP EXIF chunks, XMP
// (attribute, element, compressed iTXt) in JPEG, PNG and WebP, PNG's legacy
// "Raw profile type exif" text, an eXIf after the image data, and EXIF's 1
// winning over XMP's 6; each also read as stored (apply_exif_orientation off).
TEST(ImageDecode, OrientationFromExifXmpAndTextChunks) {
  int compared = 0;
  for (const char* prefix :
       {"webp_exif_", "webp_xmp_", "webp_animated_exif_", "jpeg_xmp_", "png_xmp_",
        "png_raw_profile_", "png_exif_after_idat_", "png_exif_1_beside_xmp_6"}) {
    compared += check_cases("generated", prefix);
  }
  EXPECT_EQ(compared, 5 * 27);
  // The cases turn: an orientation of 5-8 swaps height and width.
  const auto path = fp_test::image::corpus_file("png_xmp_element_3.png");
  EXPECT_EQ(shape(fp::image::read_image(path)), (std::vector<std::int64_t>{3, 41, 29}));
  EXPECT_EQ(shape(fp::image::read_image(path, {.apply_exif_orientation = false})),
            (std::vector<std::int64_t>{3, 29, 41}));
}

// 16-bit PNGs of every colour type, gray and RGB with and without tRNS, in
// every mode (make_corpus.py's sixteen_cases says which reference each follows).
TEST(ImageDecode, SixteenBitPngsInEveryMode) {
  int compared = 0;
  for (const char* prefix : {"png_gray16", "png_ga16", "png_rgb16", "png_rgba16"}) {
    compared += check_cases("generated", prefix);
  }
  EXPECT_EQ(compared, 5 * 6);
}

// Every frame equals Pillow's seek(i) + convert(mode): disposal, transparency,
// local and global tables, interlacing, a canvas grown to hold the first frame.
TEST(ImageDecode, GifEqualsPillow) {
  EXPECT_EQ(check_cases("generated", "gif_"), 5 * 31);
}

TEST(ImageDecode, GifShapesAreTorchvisions) {
  const fp::Tensor single = fp::image::read_image(fp_test::image::corpus_file("gif_pillow.gif"));
  EXPECT_EQ(shape(single), (std::vector<std::int64_t>{3, 37, 53}));
  const fp::Tensor bytes =
      fp::image::read_file(fp_test::image::corpus_file("gif_pillow_animated.gif"));
  const fp::Tensor frames = fp::image::decode_gif(bytes);
  EXPECT_EQ(shape(frames), (std::vector<std::int64_t>{4, 3, 37, 53}));
  EXPECT_TRUE(same_pixels(fp::image::decode_image(bytes), frames));
  EXPECT_TRUE(same_pixels(
      fp::image::decode_gif(bytes, {.mode = ImageReadMode::Gray, .dtype = fp::DType::F32}),
      fp::image::floatify(fp::image::decode_gif(bytes, {.mode = ImageReadMode::Gray}))));
}

// Truncated data, bad LZW codes, zero-sized frames, a 65535x65535 screen:
// Pillow raises, and flash_powder throws fp::Error naming the decoder.
TEST(ImageDecode, GifsPillowRefusesThrow) {
  int refused = 0;
  for (const auto& c : fp_test::image::refused()) {
    if (c.name.rfind("gif_", 0) != 0) continue;
    SCOPED_TRACE(c.name + ": Pillow says " + c.pillow);
    try {
      fp::image::read_image(c.file);
      ADD_FAILURE() << "decoded";
    } catch (const fp::Error& error) {
      EXPECT_NE(std::string(error.what()).find("fp::image::decode_gif: " + c.file.string()),
                std::string::npos)
          << error.what();
    }
    ++refused;
  }
  EXPECT_EQ(refused, 8);
}

TEST(ImageDecode, ImagesNobodyHereMadeEqualPillow) {
  EXPECT_GE(check_cases("found", ""), 5 * 20);
}

TEST(ImageDecode, DecodeFunctionsAgreeWithReadImage) {
  for (const char* name :
       {"jpeg_q75_420.jpg", "png_RGBA.png", "webp_lossy.webp", "gif_pillow.gif"}) {
    SCOPED_TRACE(name);
    const fp::Tensor bytes = fp::image::read_file(fp_test::image::corpus_file(name));
    const fp::Tensor read = fp::image::read_image(fp_test::image::corpus_file(name));
    EXPECT_TRUE(same_pixels(fp::image::decode_image(bytes), read));
    const std::string file = name;
    if (file.ends_with(".jpg")) {
      EXPECT_TRUE(same_pixels(fp::image::decode_jpeg(bytes), read));
    } else if (file.ends_with(".png")) {
      EXPECT_TRUE(same_pixels(fp::image::decode_png(bytes), read));
    } else if (file.ends_with(".gif")) {
      EXPECT_TRUE(same_pixels(fp::image::decode_gif(bytes), read));
    } else if (file.ends_with(".avif")) {
      EXPECT_TRUE(same_pixels(fp::image::decode_avif(bytes), read));
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
