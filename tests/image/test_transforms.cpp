// floatify, resize, make_grid, save_image and the draw_* overlays against
// torchvision (its Python, run by make_corpus.py for this CPU lane: ATen's
// interpolation kernels differ between AVX2, AVX-512 and the default).
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "corpus.h"
#include "support/expect_error.h"
#include "support/handle_listener.h"
#include "support/truth.h"

#include <flash_powder/aten/aten.h>

namespace {

namespace image = fp::image;
using fp_test::image::corpus_file;
using fp_test::image::same_pixels;

/// torchvision's outputs for this lane's CPU capability.
const std::map<std::string, fp::Tensor>& truth() {
  static const std::map<std::string, fp::Tensor> loaded = fp_test::process_lifetime([] {
    const auto path =
        corpus_file("transforms-" + std::string(fp::torch_cpu_capability()) + ".safetensors");
    std::map<std::string, fp::Tensor> out;
    for (auto& [name, tensor] : fp::safetensors::load(path))
      out.emplace(name, tensor);
    return out;
  });
  return loaded;
}

// Loaded before the first test, so that the check that each test leaves no
// libtorch handle alive (tests/support/handle_listener.h) does not count
// this cache against the test that happens to load it.
class LoadTruth : public ::testing::Environment {
  void SetUp() override { truth(); }
};
[[maybe_unused]] const auto* const load_truth = ::testing::AddGlobalTestEnvironment(new LoadTruth);

const fp::Tensor& expected(const std::string& key) {
  const auto found = truth().find(key);
  if (found == truth().end()) throw std::runtime_error("no truth for " + key);
  return found->second;
}

fp::Tensor rgb() {
  return image::read_image(corpus_file("png_RGB.png"));
}

fp::Tensor crops() {
  const fp::Tensor floats = image::floatify(rgb());
  std::vector<fp::Tensor> parts;
  for (auto [y, x] : {std::pair{0, 0}, {5, 9}, {30, 40}, {11, 3}, {33, 0}}) {
    parts.push_back(floats.i(fp::all, fp::slice(y, y + 20), fp::slice(x, x + 30)).to_owned());
  }
  return fp::stack(parts);
}

fp::Tensor masks(const fp::Tensor& image) {
  return fp::stack({image.i(0).gt(128), image.i(1).lt(90), image.i(2).gt(200)});
}

fp::Tensor boxes() {
  return fp::tensor(
      {{1, 2, 30, 40}, {10, 5, 60, 50}, {0, 0, 70, 52}, {20, 20, 20, 30}, {40, 45, 90, 80}});
}

TEST(ImageTransforms, FloatifyEqualsToDtype) {
  EXPECT_TRUE(same_pixels(image::floatify(rgb()), expected("floatify_f32")));
  EXPECT_TRUE(
      same_pixels(image::floatify(rgb(), {.dtype = fp::DType::F64}), expected("floatify_f64")));
}

TEST(ImageTransforms, ResizeEqualsTorchvisionBitForBit) {
  const std::pair<const char*, image::Interpolation> modes[] = {
      {"nearest", image::Interpolation::Nearest},
      {"nearest_exact", image::Interpolation::NearestExact},
      {"bilinear", image::Interpolation::Bilinear},
      {"bicubic", image::Interpolation::Bicubic},
      {"lanczos", image::Interpolation::Lanczos}};
  const fp::Tensor pixels = rgb();
  const fp::Tensor batch = fp::stack({pixels, fp::aten::flip(pixels, {-1})});
  const fp::Tensor floats = image::floatify(pixels);
  int compared = 0;
  for (const auto& [name, mode] : modes) {
    for (auto [h, w] : {std::pair<std::int64_t, std::int64_t>{30, 41}, {100, 120}}) {
      for (bool antialias : {true, false}) {
        if (mode == image::Interpolation::Lanczos && !antialias) continue;
        const std::string key = "resize_" + std::string(name) + "_" + std::to_string(h) + "x" +
                                std::to_string(w) + "_aa" + std::to_string(int(antialias));
        SCOPED_TRACE(key);
        const image::ResizeOptions options{.interpolation = mode, .antialias = antialias};
        if (!truth().count(key)) {
          // The loaded torch has no such kernel (uint8 lanczos before 2.13),
          // so torchvision failed too: flash_powder must refuse, not guess.
          EXPECT_THROW(image::resize(pixels, h, w, options), fp::Error);
          EXPECT_THROW(image::resize(batch, h, w, options), fp::Error);
          compared += 2;
          continue;
        }
        EXPECT_TRUE(same_pixels(image::resize(pixels, h, w, options), expected(key)));
        EXPECT_TRUE(same_pixels(image::resize(batch, h, w, options), expected(key + "_batch")));
        compared += 2;
        if (truth().count(key + "_float")) {
          EXPECT_TRUE(same_pixels(image::resize(floats, h, w, options), expected(key + "_float")));
          ++compared;
        }
      }
    }
  }
  EXPECT_EQ(compared, 2 * 18 + 8);
}

TEST(ImageTransforms, ResizeRefusesBadInput) {
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::image::resize: the image: expected [..., C, H, W], got 2 dimensions",
                  image::resize(fp::zeros({4, 4}), 2, 2));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected uint8 or floating pixels, got int32",
                  image::resize(fp::zeros({1, 4, 4}, fp::DType::I32), 2, 2));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "0x5 is not a positive size",
                  image::resize(rgb(), 0, 5));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument, "Lanczos needs antialias = true",
      image::resize(rgb(), 5, 5,
                    {.interpolation = image::Interpolation::Lanczos, .antialias = false}));
}

TEST(ImageTransforms, MakeGridEqualsTorchvision) {
  const fp::Tensor c = crops();
  EXPECT_TRUE(same_pixels(image::make_grid(c), expected("grid_default")));
  EXPECT_TRUE(same_pixels(image::make_grid(c, {.nrow = 2, .padding = 3, .pad_value = 0.5}),
                          expected("grid_options")));
  const fp::Tensor wide = c * 3 - 1;
  EXPECT_TRUE(same_pixels(image::make_grid(wide, {.normalize = true}), expected("grid_normalize")));
  EXPECT_TRUE(same_pixels(image::make_grid(c, {.normalize = true, .value_range = {{0.2, 0.8}}}),
                          expected("grid_value_range")));
  EXPECT_TRUE(same_pixels(image::make_grid(wide, {.normalize = true, .scale_each = true}),
                          expected("grid_scale_each")));
  EXPECT_TRUE(same_pixels(image::make_grid(c.i(fp::all, fp::slice(0, 1)), {.nrow = 3}),
                          expected("grid_gray")));
  EXPECT_TRUE(same_pixels(image::make_grid(c.i(0)), expected("grid_single")));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "fp::image::make_grid: the images: expected [B, C, H, W], [C, H, W] or [H, W], got 5",
      image::make_grid(fp::zeros({1, 1, 1, 2, 2})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "nrow must be positive",
                  image::make_grid(c, {.nrow = 0}));
}

TEST(ImageTransforms, SaveImageWritesWhatTorchvisionSaves) {
  const auto path = std::filesystem::temp_directory_path() / "fp_save_image_row.png";
  image::save_image(crops(), path);  // [B, C, H, W]: one row
  EXPECT_TRUE(
      same_pixels(image::read_image(path), image::read_image(corpus_file("save_image_row.png"))));
  // [V, B, C, H, W]: V rows of B, the seed's grid.
  const fp::Tensor rows = crops().i(fp::slice(0, 4)).reshape({2, 2, 3, 20, 30});
  image::save_image(rows, path);
  EXPECT_TRUE(
      same_pixels(image::read_image(path), image::make_grid(crops().i(fp::slice(0, 4)), {.nrow = 2})
                                               .mul(255)
                                               .add(0.5)
                                               .clamp(0, 255)
                                               .to(fp::DType::U8)));
  // uint8 [C, H, W] is saved as it is.
  image::save_image(rgb(), path);
  EXPECT_TRUE(same_pixels(image::read_image(path), rgb()));
  std::filesystem::remove(path);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "cannot tell the format from the extension \".bmp\"",
                  image::save_image(rgb(), "/tmp/fp_never.bmp"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "expected uint8 pixels or floats in [0, 1], got int64",
                  image::save_image(fp::zeros({3, 2, 2}, fp::DType::I64), "/tmp/fp_never.png"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "got 6 dimensions",
                  image::save_image(fp::zeros({1, 1, 1, 3, 2, 2}), "/tmp/x.png"));
}

TEST(ImageTransforms, DrawSegmentationMasksEqualsTorchvision) {
  const fp::Tensor pixels = rgb();
  const fp::Tensor m = masks(pixels);
  EXPECT_TRUE(same_pixels(image::draw_segmentation_masks(pixels, m), expected("masks_default")));
  EXPECT_TRUE(
      same_pixels(image::draw_segmentation_masks(
                      pixels, m, {.alpha = 0.5, .colors = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}}}),
                  expected("masks_colors")));
  EXPECT_TRUE(same_pixels(image::draw_segmentation_masks(image::floatify(pixels), m,
                                                         {.alpha = 0.3, .colors = {{10, 200, 30}}}),
                          expected("masks_float")));
  EXPECT_TRUE(
      same_pixels(image::draw_segmentation_masks(pixels, m.i(0)), expected("masks_single")));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "The masks must be of dtype bool",
                  image::draw_segmentation_masks(pixels, m.to(fp::DType::U8)));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "must have the same height and width",
                  image::draw_segmentation_masks(pixels, m.i(fp::all, fp::slice(0, 5))));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "Pass an RGB image",
                  image::draw_segmentation_masks(pixels.i(fp::slice(0, 1)), m));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "but got 2 < 3",
                  image::draw_segmentation_masks(pixels, m, {.colors = {{1, 2, 3}, {4, 5, 6}}}));
}

TEST(ImageTransforms, DrawBoundingBoxesEqualsTorchvision) {
  const fp::Tensor pixels = rgb();
  EXPECT_TRUE(same_pixels(image::draw_bounding_boxes(pixels, boxes()), expected("boxes_default")));
  EXPECT_TRUE(same_pixels(
      image::draw_bounding_boxes(pixels, boxes(), {.colors = {{255, 0, 0}}, .width = 3}),
      expected("boxes_width3")));
  EXPECT_TRUE(same_pixels(
      image::draw_bounding_boxes(pixels, boxes(), {.colors = {{0, 255, 255}}, .fill = true}),
      expected("boxes_fill")));
  EXPECT_TRUE(
      same_pixels(image::draw_bounding_boxes(pixels.i(fp::slice(0, 1)), boxes(), {.width = 2}),
                  expected("boxes_gray")));
  EXPECT_TRUE(same_pixels(
      image::draw_bounding_boxes(image::floatify(pixels), boxes(), {.colors = {{255, 255, 0}}}),
      expected("boxes_float")));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected an [N, 4] tensor",
                  image::draw_bounding_boxes(pixels, fp::zeros({2, 3})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "(xmin, ymin, xmax, ymax) format",
                  image::draw_bounding_boxes(pixels, fp::tensor({{5, 5, 1, 1}})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "Only grayscale and RGB images are supported",
                  image::draw_bounding_boxes(fp::zeros({4, 5, 5}, fp::DType::U8), boxes()));
}

/// The labels of make_corpus.py's labelled_boxes_truth.
std::vector<std::string> box_labels() {
  return {"disc 0.97", "Square", "", "tri|gy_{}~", "at the edge: clipped"};
}

TEST(ImageTransforms, DrawBoundingBoxesWithLabelsEqualsTorchvision) {
  const fp::Tensor pixels = rgb();
  EXPECT_TRUE(same_pixels(image::draw_bounding_boxes(pixels, boxes(), {.labels = box_labels()}),
                          expected("boxes_labels")));
  EXPECT_TRUE(
      same_pixels(image::draw_bounding_boxes(
                      pixels, boxes(),
                      {.colors = {{255, 0, 0}, {0, 0, 255}, {255, 0, 0}, {0, 0, 255}, {9, 9, 9}},
                       .fill = true,
                       .width = 3,
                       .labels = box_labels()}),
                  expected("boxes_labels_width3_fill")));
  EXPECT_TRUE(same_pixels(image::draw_bounding_boxes(pixels.i(fp::slice(0, 1)), boxes(),
                                                     {.width = 0, .labels = box_labels()}),
                          expected("boxes_labels_gray")));
  EXPECT_TRUE(
      same_pixels(image::draw_bounding_boxes(image::floatify(pixels), boxes(),
                                             {.colors = {{255, 255, 0}}, .labels = box_labels()}),
                  expected("boxes_labels_float")));
  // The labels are drawn: without them the picture differs.
  EXPECT_FALSE(same_pixels(image::draw_bounding_boxes(pixels, boxes()), expected("boxes_labels")));
}

TEST(ImageTransforms, DrawBoundingBoxesRefusesBadLabels) {
  const fp::Tensor pixels = rgb();
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "Number of boxes (5) and labels (2) mismatch",
                  image::draw_bounding_boxes(pixels, boxes(), {.labels = {"a", "b"}}));
  std::vector<std::string> accented = box_labels();
  accented[3] = "caf\xc3\xa9";
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "label 3 has a character that is not printable ASCII",
                  image::draw_bounding_boxes(pixels, boxes(), {.labels = accented}));
  std::vector<std::string> two_lines = box_labels();
  two_lines[0] = "two\nlines";
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "label 0 has a character that is not printable ASCII",
                  image::draw_bounding_boxes(pixels, boxes(), {.labels = two_lines}));
}

TEST(ImageTransforms, DrawPolygonsEqualsPillow) {
  /*
  #|PYTHON
  import numpy as np
  from PIL import Image, ImageDraw
  COLORS = [(255, 0, 0), (0, 200, 30), (20, 40, 250), (250, 250, 0)]
  def polygons(seed, count):
      # Vertices over the image and up to 5 pixels past each side.
      generator = torch.Generator().manual_seed(seed)
      return torch.rand(4, count, 2, generator=generator, dtype=torch.float64) * torch.tensor([47.0, 39.0]) - 5
  def pillow(seed, count):
      picture = Image.new("RGB", (37, 29))
      draw = ImageDraw.Draw(picture)
      for polygon, color in zip(polygons(seed, count), COLORS):
          draw.polygon([tuple(v) for v in polygon.tolist()], outline=color)
      return torch.from_numpy(np.array(picture)).permute(2, 0, 1).flatten().tolist()
  */
  const std::vector<image::Color> colors = {
      {255, 0, 0}, {0, 200, 30}, {20, 40, 250}, {250, 250, 0}};
  const auto expected_pixels = std::vector<std::vector<std::int64_t>>{
      fp_test::truth<std::vector<std::int64_t>>("pillow(1, 2)"),
      fp_test::truth<std::vector<std::int64_t>>("pillow(2, 3)"),
      fp_test::truth<std::vector<std::int64_t>>("pillow(3, 5)"),
      fp_test::truth<std::vector<std::int64_t>>("pillow(4, 8)")};
  const std::pair<int, int> cases[] = {{1, 2}, {2, 3}, {3, 5}, {4, 8}};
  for (std::size_t i = 0; i < std::size(cases); ++i) {
    const auto [seed, count] = cases[i];
    fp::Generator generator(static_cast<std::uint64_t>(seed));
    const fp::Tensor polygons =
        fp::rand({4, count, 2}, generator, fp::DType::F64).mul(fp::tensor({47.0, 39.0})).sub(5);
    const fp::Tensor drawn =
        image::draw_polygons(fp::zeros({3, 29, 37}, fp::DType::U8), polygons, {.colors = colors});
    EXPECT_EQ(drawn.dtype(), fp::DType::U8);
    EXPECT_EQ(drawn.to(fp::DType::I64).flatten().to_vector<std::int64_t>(), expected_pixels[i])
        << "seed " << seed;
  }
  // A gray float image comes back RGB float, as draw_bounding_boxes does.
  const fp::Tensor gray =
      image::draw_polygons(fp::zeros({1, 6, 6}), fp::tensor({{{1.0, 1.0}, {4.0, 4.0}}}));
  EXPECT_EQ(gray.size(0), 3);
  EXPECT_EQ(gray.dtype(), fp::DType::F32);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected a real [K, P, 2] tensor",
                  image::draw_polygons(rgb(), fp::zeros({4, 2})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected a real [K, P, 2] tensor",
                  image::draw_polygons(rgb(), fp::zeros({1, 0, 2})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "a vertex is not finite",
                  image::draw_polygons(rgb(), fp::full({1, 3, 2}, INFINITY)));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "Only grayscale and RGB images are supported",
                  image::draw_polygons(fp::zeros({4, 5, 5}, fp::DType::U8), fp::zeros({1, 3, 2})));
}

TEST(ImageTransforms, ScaleToDomainMapsMinToZeroAndMaxToOne) {
  const fp::Tensor values = fp::tensor({{-3.f, 1.f}, {5.f, 0.f}});
  /* #|PYTHON
  v = torch.tensor([[-3., 1.], [5., 0.]])
  s = (v - v.min()) / (v.max() - v.min())
  */
  EXPECT_EQ(image::scale_to_domain(values).to_vector<float>(),
            fp_test::truth<std::vector<float>>("s.flatten().tolist()"));
  EXPECT_TRUE(image::scale_to_domain(fp::full({2, 2}, 7)).is_equal(fp::zeros({2, 2})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "fp::image::scale_to_domain: the image: the tensor is empty",
                  image::scale_to_domain(fp::zeros({0})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "floatify: the options: dtype int32 is not a floating dtype",
                  image::floatify(rgb(), {.dtype = fp::DType::I32}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "expected uint8 or uint16 pixels (or floats), got int64",
                  image::floatify(fp::zeros({1}, fp::DType::I64)));
}

}  // namespace
