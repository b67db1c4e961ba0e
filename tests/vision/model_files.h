// What tests/vision/make_models.py writes, as the vision tests read it.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace vision_test {

/// Where make_models.py writes the weights, keys and outputs.
inline const std::filesystem::path kModelDir = FP_VISION_MODEL_DIR;

/// torchvision's state-dict keys of the network `name` (NAME.keys), in order.
inline std::vector<std::string> expected_keys(const std::string& name) {
  std::ifstream file(kModelDir / (name + ".keys"));
  std::vector<std::string> keys;
  for (std::string line; std::getline(file, line);)
    keys.push_back(line);
  return keys;
}

}  // namespace vision_test
