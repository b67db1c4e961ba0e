// What the detection tests read from tests/vision/make_detection_truth.py's
// files: the folder, a model's detections file under this CPU capability,
// and the builder options it records.
#pragma once

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>

namespace fp_test::detection_truth {

/// The folder make_detection_truth.py writes.
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

/// The keys of a state dict or checkpoint, sorted.
template <class Dict>
std::vector<std::string> sorted_keys(const Dict& dict) {
  std::vector<std::string> keys = dict.keys();
  std::sort(keys.begin(), keys.end());
  return keys;
}

}  // namespace fp_test::detection_truth
