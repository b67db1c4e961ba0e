// The test pictures of the synthetic shapes (examples/shapes/shapes.py) as
// the C++ demos read them, and how they score a segmentation against the
// truth: what examples/unet and examples/segment share.
//
// TEST_DIR/image_NN.png are the RGB pictures, TEST_DIR/mask_NN.png the class
// of each of their pixels (0 background, 1 disc, 2 square, 3 triangle).
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <flash_powder/flash_powder.h>
#include <flash_powder/image/convert.h>
#include <flash_powder/image/draw.h>
#include <flash_powder/image/io.h>

namespace shapes {

/// shapes.CLASSES.
inline const std::vector<std::string> kClasses = {"background", "disc", "square", "triangle"};
/// The shapes, without the background.
inline constexpr std::int64_t kShapeClasses = 3;
/// Colours of disc, square and triangle.
inline const std::vector<fp::image::Color> kPalette = {
    {230, 25, 75}, {60, 200, 75}, {40, 120, 255}};

/// [C, H, W] bool masks of the shapes (disc, square, triangle) of a [H, W] class map.
inline fp::Tensor masks_of(const fp::Tensor& classes) {
  std::vector<fp::Tensor> masks;
  for (std::int64_t c = 1; c <= kShapeClasses; ++c)
    masks.push_back(classes.eq(c));
  return fp::stack(masks);
}

/// The test pictures and the truth about them.
struct TestSet {
  /// TEST_DIR/image_NN.png, sorted.
  std::vector<std::filesystem::path> paths;
  /// [3, H, W] uint8 each.
  std::vector<fp::Tensor> pictures;
  /// Their true masks, [kShapeClasses, H, W] bool each.
  std::vector<fp::Tensor> truths;
  /// "NN" of image_NN.png, for the files written about picture i.
  std::string number(std::size_t i) const {
    return paths[i].stem().string().substr(std::string("image_").size());
  }
};

/// Reads TEST_DIR's pictures and masks. fp::Error when it is not a folder,
/// holds no picture, or a picture has no mask (fp::image's own errors for a
/// file it cannot read).
inline TestSet read_test_set(const std::filesystem::path& dir) {
  if (!std::filesystem::is_directory(dir))
    throw fp::Error(fp::ErrorCode::BadArgument, "no folder of test pictures at " + dir.string());
  TestSet set;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("image_") && name.ends_with(".png")) set.paths.push_back(entry.path());
  }
  std::ranges::sort(set.paths);
  if (set.paths.empty())
    throw fp::Error(fp::ErrorCode::BadArgument, "no image_*.png in " + dir.string());
  for (const auto& path : set.paths) {
    set.pictures.push_back(fp::image::read_image(path, {.mode = fp::image::ImageReadMode::RGB}));
    std::string name = path.filename().string();
    const fp::Tensor classes =
        fp::image::read_image(path.parent_path() / name.replace(0, 5, "mask")).i(0).to_owned();
    set.truths.push_back(masks_of(classes.to(fp::DType::I64)));
  }
  return set;
}

/// Pixels predicted and true, per shape class, over the pictures counted.
class IoU {
 public:
  /// Counts [kShapeClasses, H, W] bool `predicted` masks against `truth`.
  void count(const fp::Tensor& predicted, const fp::Tensor& truth) {
    for (std::int64_t c = 0; c < kShapeClasses; ++c) {
      const fp::Tensor p = predicted.i(c).to_owned(), t = truth.i(c).to_owned();
      intersection_[c] += (p & t).sum().item<std::int64_t>();
      united_[c] += (p | t).sum().item<std::int64_t>();
    }
  }

  /// Prints each class's intersection over union and their mean; returns
  /// the mean over the classes present (0 when none is).
  double print() const {
    double total = 0;
    int present = 0;
    for (std::size_t c = 0; c < united_.size(); ++c) {
      if (united_[c] == 0) {  // neither in the truth nor predicted
        std::printf("  IoU %-9s n/a (absent)\n", kClasses[c + 1].c_str());
        continue;
      }
      const double iou = double(intersection_[c]) / double(united_[c]);
      total += iou;
      ++present;
      std::printf("  IoU %-9s %.3f\n", kClasses[c + 1].c_str(), iou);
    }
    if (present == 0) return 0;
    std::printf("  mean IoU      %.3f\n", total / present);
    return total / present;
  }

 private:
  std::vector<std::int64_t> intersection_ = std::vector<std::int64_t>(kShapeClasses, 0);
  std::vector<std::int64_t> united_ = std::vector<std::int64_t>(kShapeClasses, 0);
};

/// A [C, H, W] uint8 or bool tensor enlarged `zoom` times (nearest
/// neighbour): the pictures are small, the written ones are for viewing.
inline fp::Tensor zoomed(const fp::Tensor& image, std::int64_t zoom) {
  const bool is_mask = image.dtype() == fp::DType::Bool;
  const fp::Tensor large = fp::image::resize(
      is_mask ? image.to(fp::DType::U8) : image, image.size(1) * zoom, image.size(2) * zoom,
      {.interpolation = fp::image::Interpolation::Nearest, .antialias = false});
  return is_mask ? large.to(fp::DType::Bool) : large;
}

/// The picture with masks painted over it at `alpha`, enlarged `zoom` times.
inline fp::Tensor painted(const fp::Tensor& picture, const fp::Tensor& masks, double alpha,
                          std::int64_t zoom) {
  return fp::image::draw_segmentation_masks(zoomed(picture, zoom), zoomed(masks, zoom),
                                            {.alpha = alpha, .colors = kPalette});
}

/// A floor on a score given on the command line (MIN_MEAN_IOU): a number in
/// [0, 1]; fp::Error naming `name` for anything else.
inline double floor_argument(const std::string& text, const std::string& name) {
  double floor = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), floor);
  if (error != std::errc() || end != text.data() + text.size() || floor < 0 || floor > 1)
    throw fp::Error(fp::ErrorCode::BadArgument,
                    name + " must be a number from 0 to 1, not '" + text + "'");
  return floor;
}

/// Prints that `score` (what `what` names) reaches `floor`; fp::Error when it does not.
inline void require_floor(const std::string& what, double score, double floor) {
  std::array<char, 128> text{};
  std::snprintf(text.data(), text.size(), "%s %.3f, at least %.3f required", what.c_str(), score,
                floor);
  if (score < floor)
    throw fp::Error(fp::ErrorCode::BadArgument,
                    std::string(text.data()) + ": the network has not learnt the shapes");
  std::printf("%s: reached\n", text.data());
}

/// A demo's main: `run(argc, argv)` when it has from `least` to `most`
/// arguments (the usage line and 2 otherwise); an error it throws (fp::Error,
/// or the file system's) printed after the program's name, and 1.
template <class Run>
int main_of(int argc, char** argv, int least, int most, const char* usage, Run run) {
  if (argc < least + 1 || argc > most + 1) {
    std::cerr << usage << "\n";
    return 2;
  }
  try {
    return run(argc, argv);
  } catch (const std::exception& error) {
    std::cerr << std::filesystem::path(argv[0]).filename().string() << ": " << error.what() << "\n";
    return 1;
  }
}

}  // namespace shapes
