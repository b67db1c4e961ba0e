// What tests/vision/make_models.py writes, as the vision tests read it.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace vision_test {

/// Where make_models.py writes the weights, keys and outputs.
inline const std::filesystem::path kModelDir = FP_VISION_MODEL_DIR;

/// The lines of the file `file_name` make_models.py wrote (none if absent).
inline std::vector<std::string> lines_of(const std::string& file_name) {
  std::ifstream file(kModelDir / file_name);
  std::vector<std::string> lines;
  for (std::string line; std::getline(file, line);)
    lines.push_back(line);
  return lines;
}

/// torchvision's state-dict keys of the network `name` (NAME.keys), in order.
inline std::vector<std::string> expected_keys(const std::string& name) {
  return lines_of(name + ".keys");
}

}  // namespace vision_test
