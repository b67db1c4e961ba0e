// The detect demo: torchvision's fasterrcnn_mobilenet_v3_large_320_fpn,
// fine-tuned in PyTorch to find the synthetic shapes (examples/detect/train.py),
// run from C++ with fp::vision, its detections drawn with their labels.
//
//     fp_detect WEIGHTS TEST_DIR OUT_DIR [REFERENCE.safetensors [MIN_MEAN_IOU]]
//
// Reads TEST_DIR/image_NN.png with fp::image and the true boxes and classes
// of their shapes (TEST_DIR/boxes.safetensors: boxes_NN [K, 4], labels_NN
// [K]), runs the detector on the pictures as torchvision's model does
// ([0, 1] floats; the model normalises them itself) and scores its
// detections of score kMinScore or more against the truth: each true box's
// best IoU with a detection of its class, and the precision and recall of
// the detections at IoU 0.5. Writes OUT_DIR/detections_NN.png (the
// detections, labelled "class score") and OUT_DIR/grid.png (a row per
// picture: truth | detections), enlarged for viewing. Given PyTorch's
// detections on the same pictures (reference.py), fails unless its boxes,
// labels and scores are PyTorch's bit for bit, and given MIN_MEAN_IOU,
// unless the mean best IoU reaches it.
#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <flash_powder/flash_powder.h>
#include <flash_powder/image/convert.h>
#include <flash_powder/image/draw.h>
#include <flash_powder/image/io.h>
#include <flash_powder/safetensors/safetensors.h>
#include <flash_powder/vision/vision.h>

#include "shapes/test_set.h"

namespace fs = std::filesystem;
namespace detection = fp::vision::models::detection;

namespace {

/// The pictures' size, which the detector keeps (examples/detect/detector.py's SIZE).
constexpr std::int64_t kSize = 160;
/// Detections scoring less are not shown nor scored. The network fine-tuned
/// for a minute is unsure of itself: its right detections score from about
/// 0.3 (an untrained one's, about 0.25 for every class, none reach it).
constexpr double kMinScore = 0.3;
/// The written pictures are enlarged this many times.
constexpr std::int64_t kZoom = 3;

/// The test pictures and their true boxes.
struct TestPictures {
  std::vector<fs::path> paths;               ///< TEST_DIR/image_NN.png, sorted
  std::vector<fp::Tensor> pixels;            ///< [3, H, W] uint8 each
  std::vector<detection::Detection> truths;  ///< boxes and labels of each picture's shapes
  /// "NN" of image_NN.png.
  std::string number(std::size_t i) const {
    return paths[i].stem().string().substr(std::string("image_").size());
  }
};

/// Reads TEST_DIR: fp::Error when it is not a folder, holds no picture or no
/// truth for one (fp::image's and fp::safetensors' own errors for a file they cannot read).
TestPictures read_pictures(const fs::path& dir) {
  if (!fs::is_directory(dir))
    throw fp::Error(fp::ErrorCode::BadArgument, "no folder of test pictures at " + dir.string());
  TestPictures set;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("image_") && name.ends_with(".png")) set.paths.push_back(entry.path());
  }
  std::ranges::sort(set.paths);
  if (set.paths.empty())
    throw fp::Error(fp::ErrorCode::BadArgument, "no image_*.png in " + dir.string());
  const fp::StateDict truth = fp::safetensors::load(dir / "boxes.safetensors");
  for (std::size_t i = 0; i < set.paths.size(); ++i) {
    set.pixels.push_back(
        fp::image::read_image(set.paths[i], {.mode = fp::image::ImageReadMode::RGB}));
    const std::string number = set.number(i);
    if (!truth.contains("boxes_" + number) || !truth.contains("labels_" + number))
      throw fp::Error(fp::ErrorCode::BadArgument, "no true boxes for " +
                                                      set.paths[i].filename().string() + " in " +
                                                      (dir / "boxes.safetensors").string());
    set.truths.push_back(
        {.boxes = truth.at("boxes_" + number), .labels = truth.at("labels_" + number)});
  }
  return set;
}

/// The detections scoring kMinScore or more: the first ones, as the model
/// returns them by decreasing score.
detection::Detection confident(const detection::Detection& found) {
  const std::int64_t count = found.scores.ge(kMinScore).sum().item<std::int64_t>();
  const auto first = [count](const fp::Tensor& t) { return t.i(fp::slice(0, count)).to_owned(); };
  return {
      .boxes = first(found.boxes), .labels = first(found.labels), .scores = first(found.scores)};
}

/// How the detections match the truth, over the pictures counted.
class Score {
 public:
  /// Counts one picture's confident detections against its truth.
  void count(const detection::Detection& found, const detection::Detection& truth) {
    const std::int64_t truths = truth.boxes.size(0), detections = found.boxes.size(0);
    // IoU of each true box with each detection of its class (0 for another class).
    const fp::Tensor same_class = truth.labels.unsqueeze(1).eq(found.labels.unsqueeze(0));
    const fp::Tensor iou = fp::vision::ops::box_iou(truth.boxes, found.boxes) * same_class;
    const std::vector<float> values = iou.contiguous().to_vector<float>();
    std::vector<bool> matched(static_cast<std::size_t>(truths), false);
    for (std::int64_t t = 0; t < truths; ++t) {
      float best = 0;
      for (std::int64_t d = 0; d < detections; ++d)
        best = std::max(best, values[static_cast<std::size_t>(t * detections + d)]);
      best_iou_sum_ += best;
    }
    // Detections in score order, each matching the best unmatched true box at IoU 0.5 or more.
    for (std::int64_t d = 0; d < detections; ++d) {
      std::int64_t best = -1;
      for (std::int64_t t = 0; t < truths; ++t) {
        const float v = values[static_cast<std::size_t>(t * detections + d)];
        if (v >= 0.5F && !matched[static_cast<std::size_t>(t)] &&
            (best < 0 || v > values[static_cast<std::size_t>(best * detections + d)]))
          best = t;
      }
      if (best >= 0) matched[static_cast<std::size_t>(best)] = true;
      true_positives_ += best >= 0 ? 1 : 0;
    }
    truths_ += truths;
    detections_ += detections;
  }

  /// Prints the scores; returns the mean best IoU of the true boxes.
  double print() const {
    const double mean_iou = truths_ > 0 ? best_iou_sum_ / double(truths_) : 0;
    const double precision = detections_ > 0 ? double(true_positives_) / double(detections_) : 0;
    const double recall = truths_ > 0 ? double(true_positives_) / double(truths_) : 0;
    std::printf("  %lld shapes, %lld detections of score %.1f or more\n",
                static_cast<long long>(truths_), static_cast<long long>(detections_), kMinScore);
    std::printf("  mean best IoU of the shapes  %.3f\n", mean_iou);
    std::printf("  precision at IoU 0.5         %.3f\n", precision);
    std::printf("  recall at IoU 0.5            %.3f\n", recall);
    return mean_iou;
  }

 private:
  double best_iou_sum_ = 0;
  std::int64_t true_positives_ = 0, truths_ = 0, detections_ = 0;
};

/// The picture, enlarged, with `boxes` drawn in their classes' colours and
/// labelled with the class (and the score, given scores).
fp::Tensor drawn(const fp::Tensor& picture, const detection::Detection& boxes) {
  const fp::Tensor large = shapes::zoomed(picture, kZoom);
  if (boxes.boxes.size(0) == 0) return large;
  const std::vector<std::int64_t> classes = boxes.labels.to_vector<std::int64_t>();
  const std::vector<float> scores =
      boxes.scores.is_defined() ? boxes.scores.to_vector<float>() : std::vector<float>{};
  std::vector<fp::image::Color> colors;
  std::vector<std::string> labels;
  for (std::size_t k = 0; k < classes.size(); ++k) {
    colors.push_back(shapes::kPalette[classes[k] - 1]);
    std::array<char, 32> text{};
    if (scores.empty())
      std::snprintf(text.data(), text.size(), "%s", shapes::kClasses[classes[k]].c_str());
    else
      std::snprintf(text.data(), text.size(), "%s %.2f", shapes::kClasses[classes[k]].c_str(),
                    static_cast<double>(scores[k]));
    labels.emplace_back(text.data());
  }
  return fp::image::draw_bounding_boxes(large, boxes.boxes * double(kZoom),
                                        {.colors = colors, .width = 2, .labels = labels});
}

/// "2 discs (0.99, 0.97), 1 triangle (0.88)": the detections.
std::string described(const detection::Detection& found) {
  const std::vector<std::int64_t> classes = found.labels.to_vector<std::int64_t>();
  const std::vector<float> scores = found.scores.to_vector<float>();
  std::string text;
  for (std::int64_t c = 1; c <= shapes::kShapeClasses; ++c) {
    std::string these;
    std::int64_t count = 0;
    for (std::size_t k = 0; k < classes.size(); ++k) {
      if (classes[k] != c) continue;
      std::array<char, 16> score{};
      std::snprintf(score.data(), score.size(), "%.2f", static_cast<double>(scores[k]));
      these += (count++ > 0 ? ", " : "") + std::string(score.data());
    }
    if (count == 0) continue;
    if (!text.empty()) text += ", ";
    text += std::to_string(count) + " " + shapes::kClasses[c] + (count > 1 ? "s" : "") + " (" +
            these + ")";
  }
  return text.empty() ? "nothing" : text;
}

void compare_with_pytorch(const std::vector<detection::Detection>& found, const TestPictures& test,
                          const fs::path& reference) {
  const fp::StateDict python = fp::safetensors::load(reference);
  std::int64_t detections = 0;
  for (std::size_t i = 0; i < found.size(); ++i) {
    const std::string number = test.number(i);
    const std::array<std::pair<std::string, const fp::Tensor*>, 3> parts{
        {{"boxes_", &found[i].boxes},
         {"labels_", &found[i].labels},
         {"scores_", &found[i].scores}}};
    for (const auto& [name, mine] : parts) {
      if (!python.contains(name + number))
        throw fp::Error(
            fp::ErrorCode::BadArgument,
            "PyTorch's detections in " + reference.string() + " are for other pictures");
      if (!mine->is_equal(python.at(name + number))) {
        std::printf("C++ vs PyTorch: the %s of image_%s.png DIFFER\n",
                    name.substr(0, name.size() - 1).c_str(), number.c_str());
        throw fp::Error(fp::ErrorCode::BadArgument, "the detections differ from PyTorch's");
      }
    }
    detections += found[i].boxes.size(0);
  }
  std::printf(
      "C++ vs PyTorch on the same pictures: boxes, labels and scores of all %lld detections "
      "bit for bit identical\n",
      static_cast<long long>(detections));
}

int run(int argc, char** argv) {
  // The arguments first: a mistake is reported before any work.
  const double floor = argc > 5 ? shapes::floor_argument(argv[5], "MIN_MEAN_IOU") : 0;
  const TestPictures test = read_pictures(argv[2]);
  auto net = detection::fasterrcnn_mobilenet_v3_large_320_fpn(
      {.num_classes = static_cast<std::int64_t>(shapes::kClasses.size()),
       .min_size = kSize,
       .max_size = kSize});
  net.load_state_dict(fp::safetensors::MappedFile::open(argv[1]));
  const fs::path out = argv[3];
  fs::create_directories(out);

  std::vector<fp::Tensor> inputs;
  for (const fp::Tensor& picture : test.pixels)
    inputs.push_back(fp::image::floatify(picture));
  const std::vector<detection::Detection> found = net(inputs);

  std::printf("fasterrcnn_mobilenet_v3_large_320_fpn on %zu pictures (%lld x %lld), C++:\n",
              test.paths.size(), static_cast<long long>(test.pixels[0].size(1)),
              static_cast<long long>(test.pixels[0].size(2)));
  Score score;
  std::vector<fp::Tensor> rows;
  for (std::size_t i = 0; i < test.paths.size(); ++i) {
    const detection::Detection shown = confident(found[i]);
    score.count(shown, test.truths[i]);
    const fp::Tensor picture = drawn(test.pixels[i], shown);
    const fs::path written = out / ("detections_" + test.number(i) + ".png");
    fp::image::write_png(picture, written);
    std::printf("  %s: %s\n", written.filename().c_str(), described(shown).c_str());
    rows.push_back(fp::stack({drawn(test.pixels[i], test.truths[i]), picture}));
  }
  fp::image::save_image(fp::image::floatify(fp::stack(rows)), out / "grid.png", {.pad_value = 1.0});
  const double mean_iou = score.print();
  std::printf("wrote %s/detections_*.png (%zu pictures) and %s\n", out.c_str(), test.paths.size(),
              (out / "grid.png").c_str());
  if (argc > 4) compare_with_pytorch(found, test, argv[4]);
  if (argc > 5) shapes::require_floor("mean best IoU", mean_iou, floor);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return shapes::main_of(
      argc, argv, 3, 5,
      "usage: fp_detect WEIGHTS TEST_DIR OUT_DIR [REFERENCE.safetensors [MIN_MEAN_IOU]]", run);
}
