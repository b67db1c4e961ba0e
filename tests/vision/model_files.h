// What tests/vision/make_models.py writes, as the vision tests read it.
#pragma once

#include <algorithm>
#include <cstdlib>
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

/// Whether this lane forces a CPU capability (scripts/test --cpu, valgrind)
/// or runs under sanitizers (FP_TEST_SHALLOW_MODELS), as make_models.py's
/// shallow_lane() tells it.
inline bool shallow_lane() {
  const char* forced = std::getenv("ATEN_CPU_CAPABILITY");
  const char* shallow = std::getenv("FP_TEST_SHALLOW_MODELS");
  return (forced != nullptr && *forced != '\0') || (shallow != nullptr && *shallow != '\0');
}

/// Whether `name` is a full-size network make_models.py compares in the
/// native lane only (its NATIVE_ONLY, written to native_only.list): a
/// smaller case of its class runs its blocks.
inline bool native_only(const std::string& name) {
  static const std::vector<std::string> names = lines_of("native_only.list");
  return std::ranges::find(names, name) != names.end();
}

/// torchvision's state-dict keys of the network `name` (NAME.keys), in order.
inline std::vector<std::string> expected_keys(const std::string& name) {
  return lines_of(name + ".keys");
}

}  // namespace vision_test
