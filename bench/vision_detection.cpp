// fp::vision's fasterrcnn_mobilenet_v3_large_320_fpn timed for
// bench/run_vision_detection.sh, end to end and stage by stage, on the
// weights and images bench/vision_detection.py wrote (DIR/weights.safetensors,
// DIR/inputs.safetensors); the detections are checked against torchvision's
// on as many threads (DIR/detections-N.safetensors) first, bit for bit: the
// script runs this program with torchvision's torch loaded.
//
//   bench_vision_detection DIR RESULT --threads N [--repetitions N] [--warmup N]
//
// Writes {case: {"wall": [ms per call, ...], "cpu": [...]}} as JSON to
// RESULT (the cases of bench/vision_detection.py; cpu: the process's CPU time).
#include <time.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "flash_powder/flash_powder.h"
#include "flash_powder/safetensors/safetensors.h"
#include "flash_powder/vision/vision.h"

namespace {

namespace detection = fp::vision::models::detection;

int option(int argc, char** argv, const std::string& name, int fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (argv[i] == name) return std::stoi(argv[i + 1]);
  return fallback;
}

/// The process's CPU time (all its threads) in milliseconds.
double cpu_ms() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return double(now.tv_sec) * 1e3 + double(now.tv_nsec) * 1e-6;
}

/// The largest difference between `optimized`'s feature maps and `eager`'s,
/// relative to the largest value of each map.
double largest_relative_difference(const fp::vision::ops::FeatureMaps& optimized,
                                   const fp::vision::ops::FeatureMaps& eager) {
  double largest = 0;
  for (std::size_t level = 0; level < eager.size(); ++level) {
    const fp::Tensor& reference = eager[level].second;
    largest = std::max(largest, (optimized[level].second - reference).abs().max().item<double>() /
                                    reference.abs().max().item<double>());
  }
  return largest;
}

bool same_as_torchvision(const std::vector<detection::Detection>& found, const fp::StateDict& t) {
  for (std::size_t i = 0; i < found.size(); ++i) {
    const std::string n = std::to_string(i);
    if (!found[i].boxes.is_equal(t.at("boxes" + n)) ||
        !found[i].labels.is_equal(t.at("labels" + n)) ||
        !found[i].scores.is_equal(t.at("scores" + n)))
      return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: " << argv[0] << " DIR RESULT --threads N [--repetitions N] [--warmup N]\n";
    return 2;
  }
  const int repetitions = option(argc, argv, "--repetitions", 5);
  const int warmup = option(argc, argv, "--warmup", 1);
  const int threads = option(argc, argv, "--threads", 1);
  fp::set_num_threads(threads);
  const std::string dir = argv[1];
  auto model = detection::fasterrcnn_mobilenet_v3_large_320_fpn();
  model.load_state_dict(fp::safetensors::MappedFile::open(dir + "/weights.safetensors"));
  const fp::StateDict t = fp::safetensors::load(dir + "/inputs.safetensors");
  const std::vector<fp::TensorView> images = {t.at("image0"), t.at("image1")};
  const fp::StateDict expected =
      fp::safetensors::load(dir + "/detections-" + std::to_string(threads) + ".safetensors");
  if (!same_as_torchvision(model(images), expected)) {
    std::cerr << "fasterrcnn_mobilenet_v3_large_320_fpn: flash_powder's detections differ from "
                 "torchvision's\n";
    return 1;
  }
  // Each stage on the previous stages' outputs, computed once (as vision_detection.py).
  const detection::ImageList batch = model.transform(images);
  const fp::vision::ops::FeatureMaps features = model.backbone(batch.tensors);
  const std::vector<fp::Tensor> proposals = model.rpn(batch, features);
  const std::vector<detection::Detection> detections =
      model.roi_heads(features, proposals, batch.image_sizes);
  std::vector<detection::ImageSize> original;
  for (const fp::TensorView& image : images)
    original.emplace_back(image.size(-2), image.size(-1));
  const std::vector<std::pair<std::string, std::function<void()>>> cases = {
      {"end_to_end", [&] { model(images); }},
      {"transform", [&] { model.transform(images); }},
      {"backbone", [&] { model.backbone(batch.tensors); }},
      {"rpn", [&] { model.rpn(batch, features); }},
      {"roi_heads", [&] { model.roi_heads(features, proposals, batch.image_sizes); }},
      {"postprocess",
       [&] { model.transform.postprocess(detections, batch.image_sizes, original); }},
  };
  // The same network after fp::nn::optimize_for_inference (convolutions with
  // their BatchNorm folded in and activations fused, oneDNN's pre-packed
  // kernels): its own cases, timed against torchvision's eager ones. Its
  // rounding differs (tests/nn/test_optimize.cpp bounds it against frozen
  // Inductor), printed here as the largest difference of its feature maps
  // from the eager network's; with these random weights, whose class scores
  // lie close together, that is enough to change which boxes NMS keeps, so
  // the detections are not compared.
  auto optimized = detection::fasterrcnn_mobilenet_v3_large_320_fpn();
  optimized.load_state_dict(fp::safetensors::MappedFile::open(dir + "/weights.safetensors"));
  const fp::nn::OptimizeReport report = fp::nn::optimize_for_inference(optimized);
  std::cerr << "optimised: " << report.fused.size() << " layers or chains fused, "
            << report.unchanged.size() << " left alone; feature maps within "
            << largest_relative_difference(optimized.backbone(batch.tensors), features)
            << " of the eager network's (relative)\n";
  const std::vector<std::pair<std::string, std::function<void()>>> optimized_cases = {
      {"end_to_end_optimized", [&] { optimized(images); }},
      {"backbone_optimized", [&] { optimized.backbone(batch.tensors); }},
      {"roi_heads_optimized", [&] { optimized.roi_heads(features, proposals, batch.image_sizes); }},
  };
  std::ofstream result(argv[2]);
  result << "{";
  bool first = true;
  std::vector<std::pair<std::string, std::function<void()>>> all_cases = cases;
  all_cases.insert(all_cases.end(), optimized_cases.begin(), optimized_cases.end());
  for (const auto& [name, call] : all_cases) {
    for (int i = 0; i < warmup; ++i)
      call();
    std::string wall, cpu;
    for (int i = 0; i < repetitions; ++i) {
      const auto start = std::chrono::steady_clock::now();
      const double start_cpu = cpu_ms();
      call();
      const double used_cpu = cpu_ms() - start_cpu;
      const std::chrono::duration<double, std::milli> elapsed =
          std::chrono::steady_clock::now() - start;
      wall += (i > 0 ? ", " : "") + std::to_string(elapsed.count());
      cpu += (i > 0 ? ", " : "") + std::to_string(used_cpu);
    }
    result << (first ? "" : ", ") << "\"" << name << "\": {\"wall\": [" << wall << "], \"cpu\": ["
           << cpu << "]}";
    first = false;
  }
  result << "}\n";
  return 0;
}
