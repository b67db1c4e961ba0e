// fp::vision::ops timed for bench/run_vision_ops.sh, on the inputs
// bench/vision_ops.py wrote (DIR/inputs.safetensors); each case's result is
// checked against torchvision's there first (bit for bit).
//
//   bench_vision_ops DIR RESULT [--repetitions N] [--warmup N]
//
// Writes {case: [ms per call, ...]} as JSON to RESULT. One thread.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "flash_powder/flash_powder.h"
#include "flash_powder/safetensors/safetensors.h"
#include "flash_powder/vision/vision.h"

namespace {

namespace ops = fp::vision::ops;

int option(int argc, char** argv, const std::string& name, int fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (argv[i] == name) return std::stoi(argv[i + 1]);
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: " << argv[0] << " DIR RESULT [--repetitions N] [--warmup N]\n";
    return 2;
  }
  const int repetitions = option(argc, argv, "--repetitions", 5);
  const int warmup = option(argc, argv, "--warmup", 1);
  fp::set_num_threads(1);
  const fp::StateDict t = fp::safetensors::load(std::string(argv[1]) + "/inputs.safetensors");
  ops::FeatureMaps maps;
  for (const char* level : {"0", "1", "2", "3"})
    maps.emplace_back(level, t.at(std::string("map.") + level));
  const std::vector<fp::TensorView> boxes = {t.at("rois.boxes")};
  const ops::MultiScaleRoIAlign pooler({"0", "1", "2", "3"}, 7, 2);
  const std::vector<std::pair<std::int64_t, std::int64_t>> image_shapes = {{800, 1088}};
  const std::vector<std::pair<std::string, std::function<fp::Tensor()>>> cases = {
      {"nms_1k", [&] { return ops::nms(t.at("nms1000.boxes"), t.at("nms1000.scores"), 0.5); }},
      {"nms_10k", [&] { return ops::nms(t.at("nms10000.boxes"), t.at("nms10000.scores"), 0.5); }},
      {"batched_nms_10k",
       [&] {
         return ops::batched_nms(t.at("nms10000.boxes"), t.at("nms10000.scores"),
                                 t.at("batched.idxs"), 0.5);
       }},
      {"roi_align_p2",
       [&] {
         return ops::roi_align(maps[0].second, boxes, 7,
                               {.spatial_scale = 0.25, .sampling_ratio = 2});
       }},
      {"roi_pool_p2", [&] { return ops::roi_pool(maps[0].second, boxes, 7, 0.25); }},
      {"multiscale_roi_align", [&] { return pooler(maps, boxes, image_shapes); }},
  };
  std::ofstream result(argv[2]);
  result << "{";
  bool first = true;
  for (const auto& [name, call] : cases) {
    if (!call().is_equal(t.at("result." + name))) {
      std::cerr << name << ": flash_powder's result differs from torchvision's\n";
      return 1;
    }
    for (int i = 0; i < warmup; ++i)
      call();
    result << (first ? "" : ", ") << "\"" << name << "\": [";
    first = false;
    for (int i = 0; i < repetitions; ++i) {
      const auto start = std::chrono::steady_clock::now();
      const fp::Tensor out = call();
      const std::chrono::duration<double, std::milli> elapsed =
          std::chrono::steady_clock::now() - start;
      result << (i > 0 ? ", " : "") << elapsed.count();
    }
    result << "]";
  }
  result << "}\n";
  return 0;
}
