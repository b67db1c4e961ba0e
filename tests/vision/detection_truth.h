// What the tests of fp::vision::models::detection share: the files of
// tests/vision/make_detection_truth.py (seeded weights; options, images and
// torchvision's detections) and the builder options they record, loading
// the weights with a check of the keys, the bit-for-bit comparison of
// detections, and the checks that need no torchvision values (refused
// images, what postprocessing promises).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>
#include <flash_powder/vision/models.h>

#include "support/expect_error.h"
#include "vision/ops_truth.h"

namespace fp_test::detection_truth {

/// Where make_detection_truth.py writes.
inline std::filesystem::path model_dir() {
  return std::filesystem::path(FP_VISION_DETECTION_DIR);
}

/// NAME-CAP.safetensors of make_detection_truth.py: options, images, detections.
inline fp::StateDict detections_of(const std::string& name) {
  return fp::safetensors::load(
      (model_dir() / (name + "-" + std::string(fp::torch_cpu_capability()) + ".safetensors"))
          .string());
}

/// Calls `set(KEY, value)` for each builder option "option.KEY" of `truth`.
inline void for_each_option(
    const fp::StateDict& truth,
    const std::function<void(const std::string& option, const fp::Tensor& value)>& set) {
  const std::string prefix = "option.";
  for (const auto& key : truth.keys())
    if (key.starts_with(prefix)) set(key.substr(prefix.size()), truth.at(key));
}

/// Sets the option every backbone-with-FPN family takes (num_classes, the
/// backbone's norm layer and eps, min_size, max_size) on `options`; false
/// for another option, which the family's own reader then sets.
template <class Options>
bool set_shared_option(Options& options, const std::string& option, const fp::Tensor& value) {
  if (option == "num_classes")
    options.num_classes = value.item<std::int64_t>();
  else if (option == "backbone_frozen")
    options.backbone_norm_layer = value.item<std::int64_t>() != 0
                                      ? fp::vision::ops::NormLayer::FrozenBatchNorm2d
                                      : fp::vision::ops::NormLayer::BatchNorm2d;
  else if (option == "backbone_norm_eps")
    options.backbone_norm_eps = value.item<double>();
  else if (option == "min_size")
    options.min_size = value.item<std::int64_t>();
  else if (option == "max_size")
    options.max_size = value.item<std::int64_t>();
  else
    return false;
  return true;
}

/// The keys of a state dict or checkpoint, sorted.
template <class Dict>
std::vector<std::string> sorted_keys(const Dict& dict) {
  std::vector<std::string> keys = dict.keys();
  std::sort(keys.begin(), keys.end());
  return keys;
}

/// `net` given make_detection_truth.py's weights of `name`, after checking
/// that its keys are torchvision's, no more, no fewer.
template <class Model>
void load_weights(Model& net, const std::string& name) {
  const auto checkpoint =
      fp::safetensors::MappedFile::open((model_dir() / (name + ".safetensors")).string());
  EXPECT_EQ(sorted_keys(net.state_dict()), sorted_keys(checkpoint));
  net.load_state_dict(checkpoint);
}

/// `net`'s detections of the truth's two images equal torchvision's bit for
/// bit: boxes, labels, scores and the extras (masks, keypoints) the truth has.
template <class Model>
void expect_torchvision_detections_of(const Model& net, const fp::StateDict& truth) {
  namespace detection = fp::vision::models::detection;
  const std::vector<fp::Tensor> images{truth.at("image0"), truth.at("image1")};
  ASSERT_NE(images[0].size(1), images[1].size(1));  // images of different sizes
  const std::vector<detection::Detection> found = net(images);
  ASSERT_EQ(found.size(), 2U);
  for (std::size_t i = 0; i < found.size(); ++i) {
    SCOPED_TRACE("image " + std::to_string(i));
    const std::string index = std::to_string(i);
    EXPECT_TRUE(fp_test::bit_equal(found[i].boxes, truth.at("boxes" + index)));
    EXPECT_TRUE(fp_test::bit_equal(found[i].labels, truth.at("labels" + index)));
    EXPECT_TRUE(fp_test::bit_equal(found[i].scores, truth.at("scores" + index)));
    const std::vector<std::pair<std::string, const fp::Tensor*>> extras{
        {"masks", &found[i].masks},
        {"keypoints", &found[i].keypoints},
        {"keypoints_scores", &found[i].keypoints_scores}};
    for (const auto& [extra, tensor] : extras) {
      SCOPED_TRACE(extra);
      EXPECT_EQ(tensor->is_defined(), truth.contains(extra + index));
      if (truth.contains(extra + index)) {
        EXPECT_TRUE(fp_test::bit_equal(*tensor, truth.at(extra + index)));
      }
    }
  }
}

/// Whether this lane forces a CPU capability (scripts/test's default, avx2
/// and avx512 lanes), as make_detection_truth.py's forced_capability().
inline bool forced_capability_lane() {
  const char* forced = std::getenv("ATEN_CPU_CAPABILITY");
  return forced != nullptr && *forced != '\0';
}

/// Whether such a lane compares `name` (make_detection_truth.py's
/// FORCED_CAPABILITY_MODELS, written to forced_capability.list).
inline bool compared_in_forced_capability_lanes(const std::string& name) {
  std::ifstream file(model_dir() / "forced_capability.list");
  if (!file) return true;  // no list: compare, and fail without its truth
  for (std::string line; std::getline(file, line);)
    if (line == name) return true;
  return false;
}

/// Builder `build`'s model with the truth's options of `name` (read by
/// `options_of`) and its weights detects what torchvision's does, bit for bit.
template <class Model, class Options>
void expect_builder_equals_torchvision(const std::string& name, Model (*build)(const Options&),
                                       Options (*options_of)(const fp::StateDict&)) {
  if (forced_capability_lane() && !compared_in_forced_capability_lanes(name)) {
    GTEST_SKIP() << name << " is compared in the native lane: a lane that forces a CPU capability "
                 << "compares one model of each kind (make_detection_truth.py)";
  }
  const fp::StateDict truth = detections_of(name);
  Model net = build(options_of(truth));
  load_weights(net, name);
  expect_torchvision_detections_of(net, truth);
}

/// `net` refuses no images, images of other channels or rank, and integer images.
template <class Model>
void expect_bad_images_refused(const Model& net) {
  fp::Generator g(1);
  const fp::Tensor image = fp::rand({3, 40, 50}, g);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "no images", net(std::vector<fp::Tensor>{}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "of shape [3, H, W], got [4, 40, 50]",
                  net(std::vector<fp::Tensor>{image, fp::rand({4, 40, 50}, g)}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "of shape [3, H, W], got [1, 3, 40, 50]",
                  net(std::vector<fp::Tensor>{fp::rand({1, 3, 40, 50}, g)}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected input images to be of floating type",
                  net(std::vector<fp::Tensor>{fp::zeros({3, 40, 50}, fp::DType::U8)}));
}

/// What torchvision's postprocessing promises of any weights.
struct Promises {
  /// Every score is above it.
  double score_thresh;
  /// Labels are in [first_label, num_classes).
  std::int64_t num_classes;
  /// The most detections per image.
  std::int64_t detections_per_img;
  /// The least label: 1 where class 0 is the background (RetinaNet's and
  /// FCOS's classes have none: 0).
  std::int64_t first_label = 1;
};

/// Each of `found` (the detections of `images`) is non-empty and keeps
/// `promises`: scores above the threshold, best first, labels of real
/// classes, boxes inside the image given, at most detections_per_img.
inline void expect_promises_kept(const std::vector<fp::vision::models::detection::Detection>& found,
                                 const std::vector<fp::Tensor>& images, const Promises& promises) {
  ASSERT_EQ(found.size(), images.size());
  for (std::size_t i = 0; i < found.size(); ++i) {
    SCOPED_TRACE("image " + std::to_string(i));
    const fp::vision::models::detection::Detection& d = found[i];
    const std::int64_t n = d.scores.size(0);
    ASSERT_GT(n, 0);
    EXPECT_LE(n, promises.detections_per_img);
    EXPECT_EQ(d.boxes.dim(), 2);
    EXPECT_EQ(d.boxes.size(0), n);
    EXPECT_EQ(d.boxes.size(1), 4);
    EXPECT_EQ(d.labels.dtype(), fp::DType::I64);
    const auto scores = d.scores.data<float>();
    EXPECT_TRUE(std::is_sorted(scores.begin(), scores.end(), std::greater<>()));
    EXPECT_GT(d.scores.min().item<double>(), promises.score_thresh);
    EXPECT_GE(d.labels.min().item<std::int64_t>(), promises.first_label);
    EXPECT_LT(d.labels.max().item<std::int64_t>(), promises.num_classes);
    const fp::Tensor x = d.boxes.i(fp::all, fp::slice(0, fp::end, 2)).to_owned();
    const fp::Tensor y = d.boxes.i(fp::all, fp::slice(1, fp::end, 2)).to_owned();
    EXPECT_GE(x.min().item<double>(), 0.0);
    EXPECT_LE(x.max().item<double>(), static_cast<double>(images[i].size(2)));
    EXPECT_GE(y.min().item<double>(), 0.0);
    EXPECT_LE(y.max().item<double>(), static_cast<double>(images[i].size(1)));
  }
}

}  // namespace fp_test::detection_truth
