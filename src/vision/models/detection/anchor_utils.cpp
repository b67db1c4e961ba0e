// torchvision/models/detection/anchor_utils.py's AnchorGenerator.
#include "flash_powder/vision/models/detection/anchor_utils.h"

#include <string>
#include <utility>

#include "flash_powder/aten/aten.h"
#include "flash_powder/base/error.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/functions.h"
#include "flash_powder/core/operators.h"

namespace fp::vision::models::detection {
namespace {

[[noreturn]] void refuse_anchors(const std::string& message) {
  throw Error(ErrorCode::BadArgument, "fp::vision::models::detection::AnchorGenerator: " + message);
}

Tensor float32_values(const std::vector<double>& values) {
  std::vector<float> narrowed(values.begin(), values.end());
  return fp::tensor(narrowed);
}

}  // namespace

AnchorGenerator::AnchorGenerator() : AnchorGenerator({{128, 256, 512}}, {{0.5, 1.0, 2.0}}) {}

AnchorGenerator::AnchorGenerator(std::vector<std::vector<std::int64_t>> sizes,
                                 std::vector<std::vector<double>> aspect_ratios)
    : sizes(std::move(sizes)), aspect_ratios(std::move(aspect_ratios)) {
  if (this->sizes.empty() || this->sizes.size() != this->aspect_ratios.size())
    refuse_anchors("sizes and aspect_ratios should be non-empty lists of the same length, got " +
                   std::to_string(this->sizes.size()) + " and " +
                   std::to_string(this->aspect_ratios.size()));
  for (std::size_t i = 0; i < this->sizes.size(); ++i) {
    if (this->sizes[i].empty() || this->aspect_ratios[i].empty())
      refuse_anchors("map " + std::to_string(i) + " has no sizes or no aspect ratios");
    cell_anchors.push_back(generate_anchors(this->sizes[i], this->aspect_ratios[i]));
  }
}

void AnchorGenerator::visit(nn::Visitor& /*visitor*/) {}

Tensor AnchorGenerator::generate_anchors(const std::vector<std::int64_t>& scales,
                                         const std::vector<double>& aspect_ratios) {
  const Tensor scale = fp::tensor(scales).to(DType::F32);
  const Tensor h_ratios = aten::sqrt(float32_values(aspect_ratios));
  // Python's `1 / h_ratios` is Tensor.__rdiv__: reciprocal() * 1.
  const Tensor w_ratios = aten::reciprocal(h_ratios) * 1;
  const Tensor ws = (w_ratios.unsqueeze(1) * scale.unsqueeze(0)).reshape({-1});
  const Tensor hs = (h_ratios.unsqueeze(1) * scale.unsqueeze(0)).reshape({-1});
  const Tensor base_anchors = fp::stack({-ws, -hs, ws, hs}, 1) / 2;
  return base_anchors.round();
}

std::vector<std::int64_t> AnchorGenerator::num_anchors_per_location() const {
  std::vector<std::int64_t> counts;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    counts.push_back(static_cast<std::int64_t>(sizes[i].size() * aspect_ratios[i].size()));
  return counts;
}

std::vector<Tensor> AnchorGenerator::forward(const ImageList& images,
                                             const std::vector<TensorView>& feature_maps) const {
  if (feature_maps.size() != cell_anchors.size())
    refuse_anchors("there are " + std::to_string(feature_maps.size()) + " feature maps but " +
                   std::to_string(cell_anchors.size()) +
                   " sets of sizes and aspect ratios: one set per map is needed");
  const std::int64_t image_height = images.tensors.size(-2);
  const std::int64_t image_width = images.tensors.size(-1);
  std::vector<Tensor> per_level;
  for (std::size_t level = 0; level < feature_maps.size(); ++level) {
    const std::int64_t grid_height = feature_maps[level].size(-2);
    const std::int64_t grid_width = feature_maps[level].size(-1);
    const std::int64_t stride_height = image_height / grid_height;
    const std::int64_t stride_width = image_width / grid_width;
    const Tensor base_anchors = cell_anchors[level].to(feature_maps[level].dtype());
    // int32 arange times an int64 stride, as torchvision's (exact integers).
    const Tensor shifts_x =
        fp::arange(std::int64_t{0}, grid_width, std::int64_t{1}, DType::I32) * stride_width;
    const Tensor shifts_y =
        fp::arange(std::int64_t{0}, grid_height, std::int64_t{1}, DType::I32) * stride_height;
    const Tensor shift_x = shifts_x.unsqueeze(0).expand({grid_height, grid_width}).reshape({-1});
    const Tensor shift_y = shifts_y.unsqueeze(1).expand({grid_height, grid_width}).reshape({-1});
    const Tensor shifts = fp::stack({shift_x, shift_y, shift_x, shift_y}, 1);
    per_level.push_back((shifts.view({-1, 1, 4}) + base_anchors.view({1, -1, 4})).reshape({-1, 4}));
  }
  const Tensor anchors = fp::cat(per_level, 0);
  return std::vector<Tensor>(images.image_sizes.size(), anchors);
}

}  // namespace fp::vision::models::detection
