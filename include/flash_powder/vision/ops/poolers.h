// torchvision.ops.MultiScaleRoIAlign and its LevelMapper: RoIAlign over a
// feature pyramid, each box from the level its size maps to (FPN paper,
// Eqn. 1). https://pytorch.org/vision/stable/generated/torchvision.ops.MultiScaleRoIAlign.html
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "flash_powder/core/tensor.h"
#include "flash_powder/nn/define.h"
#include "flash_powder/nn/module.h"
#include "flash_powder/vision/ops/feature_pyramid_network.h"
#include "flash_powder/vision/ops/roi.h"

namespace fp::vision::ops {

/// torchvision.ops.poolers.LevelMapper: the pyramid level of each box.
struct LevelMapper {
  /// The finest level.
  std::int64_t k_min;
  /// The coarsest level.
  std::int64_t k_max;
  /// The box size that maps to `canonical_level`.
  std::int64_t canonical_scale = 224;
  /// The level of a box of `canonical_scale`.
  std::int64_t canonical_level = 4;
  /// Added before flooring.
  double eps = 1e-6;
  /// floor(lvl0 + log2(sqrt(area) / s0) + eps), clamped to [k_min, k_max],
  /// minus k_min: int64 [sum of boxes], for one [L, 4] tensor per image.
  Tensor operator()(const std::vector<TensorView>& boxlists) const;
};

/// MultiScaleRoIAlign's keyword arguments, with torchvision's defaults.
struct MultiScaleRoIAlignOptions {
  /// The box size that maps to `canonical_level`.
  std::int64_t canonical_scale = 224;
  /// The level of a box of `canonical_scale`.
  std::int64_t canonical_level = 4;
};

/// torchvision.ops.MultiScaleRoIAlign: roi_align (not aligned) of each box
/// on the map of its level. No tensors. The scales are worked out from the
/// maps and image sizes of each call (torchvision keeps those of its first).
class MultiScaleRoIAlign : public nn::ModuleBase {
 public:
  /// Pools the maps named `featmap_names` to `output_size`.
  MultiScaleRoIAlign(std::vector<std::string> featmap_names, PooledSize output_size,
                     std::int64_t sampling_ratio, const MultiScaleRoIAlignOptions& options = {});

  void visit(nn::Visitor& visitor) override;
  /// [sum of boxes, C, height, width]: the boxes of each image ([L, 4],
  /// (x1, y1, x2, y2) in the images' pixels) pooled from the maps of `x`
  /// named in featmap_names (finest first); `image_shapes` holds each
  /// image's (height, width). Throws fp::Error (BadArgument) when no map is
  /// named or no image shape given.
  Tensor forward(const FeatureMaps& x, const std::vector<TensorView>& boxes,
                 const std::vector<std::pair<std::int64_t, std::int64_t>>& image_shapes) const;
  FP_MODULE_CALL()

  /// The maps to pool from.
  std::vector<std::string> featmap_names;
  /// The pooled size.
  PooledSize output_size;
  /// roi_align's sampling_ratio.
  std::int64_t sampling_ratio;
  /// The level mapping's constants.
  MultiScaleRoIAlignOptions options;
};

}  // namespace fp::vision::ops
