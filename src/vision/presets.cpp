// fp::vision::transforms::preset: each torchvision builder's
// `weights.transforms()` settings, from the table tools/generate_vision_presets.py
// generates from torchvision (src/vision/generated/presets.inc).
#include <algorithm>
#include <array>
#include <string>

#include "flash_powder/base/error.h"
#include "flash_powder/vision/transforms.h"

namespace fp::vision::transforms {
namespace {

/// One row of the generated table.
struct Row {
  std::string_view name;
  PresetKind kind;
  std::int64_t crop_size;  // 0 for SemanticSegmentation
  std::int64_t resize_size;
  std::array<double, 3> mean;
  std::array<double, 3> std;
  image::Interpolation interpolation;
  bool antialias;
};

constexpr Row kRows[] = {
#include "vision/generated/presets.inc"
};

Preset preset_of(const Row& row) {
  Preset preset{.kind = row.kind};
  if (row.kind == PresetKind::ImageClassification)
    preset.image_classification = {.crop_size = row.crop_size,
                                   .resize_size = row.resize_size,
                                   .mean = row.mean,
                                   .std = row.std,
                                   .interpolation = row.interpolation,
                                   .antialias = row.antialias};
  else
    preset.semantic_segmentation = {.resize_size = row.resize_size,
                                    .mean = row.mean,
                                    .std = row.std,
                                    .interpolation = row.interpolation,
                                    .antialias = row.antialias};
  return preset;
}

}  // namespace

Tensor Preset::operator()(TensorView image) const {
  return kind == PresetKind::ImageClassification
             ? transforms::image_classification(image, image_classification)
             : transforms::semantic_segmentation(image, semantic_segmentation);
}

Preset preset(std::string_view model) {
  const auto* found = std::find_if(std::begin(kRows), std::end(kRows),
                                   [&](const Row& row) { return row.name == model; });
  if (found == std::end(kRows)) {
    std::string known;
    for (const Row& row : kRows)
      known += (known.empty() ? "" : ", ") + std::string(row.name);
    throw Error(ErrorCode::BadArgument, "fp::vision::transforms::preset: no preset for model '" +
                                            std::string(model) + "'; known: " + known);
  }
  return preset_of(*found);
}

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const Row& row : kRows)
    names.emplace_back(row.name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace fp::vision::transforms
