// fp::vision::models::read_categories: the .categories file beside a checkpoint.
#include "flash_powder/vision/models/categories.h"

#include <fstream>
#include <string>
#include <utility>

#include "flash_powder/base/error.h"

namespace fp::vision::models {

std::vector<std::string> read_categories(const std::filesystem::path& checkpoint) {
  std::filesystem::path file = checkpoint;
  if (file.extension() != ".categories") file += ".categories";
  const auto refuse = [&](const std::string& why) {
    return Error(ErrorCode::BadArgument,
                 "fp::vision::models::read_categories: " + file.string() + ": " + why +
                     " (tools/convert_torchvision_weights.py writes it beside the checkpoint)");
  };
  std::ifstream in(file);
  if (!in) throw refuse("cannot be opened");
  std::vector<std::string> names;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty())
      throw refuse("line " + std::to_string(names.size() + 1) + " is empty; one name a line");
    names.push_back(std::move(line));
  }
  if (in.bad()) throw refuse("could not be read");
  if (names.empty()) throw refuse("holds no names");
  return names;
}

}  // namespace fp::vision::models
