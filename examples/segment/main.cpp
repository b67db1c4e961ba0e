// The segment demo: torchvision's lraspp_mobilenet_v3_large, trained in
// PyTorch on the synthetic shapes (examples/segment/train.py), run from C++
// with fp::vision and its masks post-processed into objects.
//
//     fp_segment WEIGHTS TEST_DIR OUT_DIR [REFERENCE.safetensors [MIN_MEAN_IOU]]
//
// Reads TEST_DIR/image_NN.png and the true class masks TEST_DIR/mask_NN.png
// with fp::image, preprocesses them as torchvision's SemanticSegmentation
// preset does (without resizing), runs the network on the batch and
// post-processes its scores: one mask per class where that class scores
// highest (fp::vision::masks::class_masks), components of kMaxSpeck pixels
// or fewer removed, each remaining component an object with its rotated box
// (min_area_rect). Writes OUT_DIR/overlay_NN.png (masks and boxes over the
// picture) and OUT_DIR/grid.png (a row per picture: input | truth |
// prediction), enlarged for viewing, and prints each class's IoU against the
// truth. Given PyTorch's logits for the same pictures (reference.py), fails
// unless they are its own bit for bit, and given MIN_MEAN_IOU, unless the
// mean IoU reaches it.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <flash_powder/aten/aten.h>
#include <flash_powder/flash_powder.h>
#include <flash_powder/image/convert.h>
#include <flash_powder/image/draw.h>
#include <flash_powder/image/io.h>
#include <flash_powder/safetensors/safetensors.h>
#include <flash_powder/vision/vision.h>

#include "shapes/test_set.h"

namespace fs = std::filesystem;
namespace masks = fp::vision::masks;
namespace segmentation = fp::vision::models::segmentation;

namespace {

/// Components of this many pixels or fewer are noise, not shapes (the
/// smallest shape, a triangle of radius 13% of the picture, has about 200).
constexpr std::int64_t kMaxSpeck = 40;
/// The pictures are small; the written ones are enlarged this many times.
constexpr std::int64_t kZoom = 4;

/// What the segmentation of one picture found.
struct Segmented {
  /// [kShapeClasses, H, W] bool: each shape class's pixels, specks removed.
  fp::Tensor masks;
  /// float64 [K, 4, 2]: the corners of each object's rotated box, (x, y).
  fp::Tensor boxes;
  /// The class (1..kShapeClasses) of each box.
  std::vector<std::int64_t> classes;
};

/// One picture's [C, H, W] class masks (background first) made objects.
Segmented objects_of(const fp::Tensor& class_masks) {
  Segmented found;
  std::vector<fp::Tensor> cleaned, corners;
  for (std::int64_t c = 1; c <= shapes::kShapeClasses; ++c) {
    cleaned.push_back(masks::remove_small_objects(class_masks.i(c), kMaxSpeck));
    const masks::Labels components = masks::label(cleaned.back());
    for (std::int64_t k = 1; k <= components.count; ++k) {
      const fp::Tensor pixels = fp::aten::flip(fp::aten::nonzero(components.labels.eq(k)), {1});
      corners.push_back(masks::min_area_rect(pixels).corners());
      found.classes.push_back(c);
    }
  }
  found.masks = fp::stack(cleaned);
  found.boxes = corners.empty() ? fp::zeros({0, 4, 2}, fp::DType::F64) : fp::stack(corners);
  return found;
}

/// The picture, enlarged, with the objects' masks and rotated boxes drawn over it.
fp::Tensor overlay(const fp::Tensor& picture, const Segmented& found, double alpha) {
  fp::Tensor painted = shapes::painted(picture, found.masks, alpha, kZoom);
  if (found.classes.empty()) return painted;
  std::vector<fp::image::Color> colors;
  for (const std::int64_t c : found.classes)
    colors.push_back(shapes::kPalette[c - 1]);
  // Pixel x covers [kZoom x, kZoom (x + 1)) once enlarged: its centre is at kZoom x + (kZoom - 1) / 2.
  const fp::Tensor corners = found.boxes * double(kZoom) + (kZoom - 1) / 2.0;
  return fp::image::draw_polygons(painted, corners, {.colors = colors});
}

/// "2 discs, 1 triangle": the objects found.
std::string described(const Segmented& found) {
  std::string text;
  for (std::int64_t c = 1; c <= shapes::kShapeClasses; ++c) {
    const auto count = std::ranges::count(found.classes, c);
    if (count == 0) continue;
    if (!text.empty()) text += ", ";
    text += std::to_string(count) + " " + shapes::kClasses[c] + (count > 1 ? "s" : "");
  }
  return text.empty() ? "nothing" : text;
}

void compare_with_pytorch(const fp::Tensor& logits, const fs::path& reference) {
  const fp::StateDict python = fp::safetensors::load(reference);
  const fp::Tensor& expected = python.at("logits");
  if (!std::ranges::equal(logits.sizes(), expected.sizes()))
    throw fp::Error(fp::ErrorCode::BadArgument,
                    "PyTorch's logits in " + reference.string() + " are for other pictures");
  const double delta = (logits - expected).abs().max().item<double>();
  const bool same = logits.is_equal(expected);
  std::printf("C++ vs PyTorch on the same pictures: max |delta| of the logits = %g (%s)\n", delta,
              same ? "bit for bit identical" : "DIFFERENT");
  if (!same) throw fp::Error(fp::ErrorCode::BadArgument, "the logits differ from PyTorch's");
}

int run(int argc, char** argv) {
  // The arguments first: a mistake is reported before any work.
  const double floor = argc > 5 ? shapes::floor_argument(argv[5], "MIN_MEAN_IOU") : 0;
  const shapes::TestSet test = shapes::read_test_set(argv[2]);
  auto net = segmentation::lraspp_mobilenet_v3_large(
      {.num_classes = static_cast<std::int64_t>(shapes::kClasses.size())});
  net.load_state_dict(fp::safetensors::MappedFile::open(argv[1]));
  const fs::path out = argv[3];
  fs::create_directories(out);

  std::vector<fp::Tensor> inputs;
  for (const fp::Tensor& picture : test.pictures)
    inputs.push_back(
        fp::vision::transforms::semantic_segmentation(picture, {.resize_size = std::nullopt}));
  const fp::Tensor logits = net(fp::stack(inputs)).out;
  const fp::Tensor class_masks = masks::class_masks(logits);

  std::printf("lraspp_mobilenet_v3_large on %zu pictures (%lld x %lld), C++:\n", test.paths.size(),
              static_cast<long long>(test.pictures[0].size(1)),
              static_cast<long long>(test.pictures[0].size(2)));
  shapes::IoU iou;
  std::vector<fp::Tensor> rows;
  for (std::size_t i = 0; i < test.paths.size(); ++i) {
    const fp::Tensor& picture = test.pictures[i];
    const Segmented found = objects_of(class_masks.i(static_cast<std::int64_t>(i)).to_owned());
    iou.count(found.masks, test.truths[i]);
    const fs::path written = out / ("overlay_" + test.number(i) + ".png");
    fp::image::write_png(overlay(picture, found, 0.5), written);
    std::printf("  %s: %s\n", written.filename().c_str(), described(found).c_str());
    rows.push_back(fp::stack({shapes::zoomed(picture, kZoom),
                              shapes::painted(picture, test.truths[i], 1.0, kZoom),
                              overlay(picture, found, 1.0)}));
  }
  fp::image::save_image(fp::image::floatify(fp::stack(rows)), out / "grid.png", {.pad_value = 1.0});
  const double mean_iou = iou.print();
  std::printf("wrote %s/overlay_*.png (%zu pictures) and %s\n", out.c_str(), test.paths.size(),
              (out / "grid.png").c_str());
  if (argc > 4) compare_with_pytorch(logits, argv[4]);
  if (argc > 5) shapes::require_floor("mean IoU", mean_iou, floor);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return shapes::main_of(
      argc, argv, 3, 5,
      "usage: fp_segment WEIGHTS TEST_DIR OUT_DIR [REFERENCE.safetensors [MIN_MEAN_IOU]]", run);
}
