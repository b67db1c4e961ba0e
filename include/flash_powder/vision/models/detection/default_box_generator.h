// torchvision.models.detection.anchor_utils.DefaultBoxGenerator: SSD's
// default boxes, a scale and its aspect ratios at every position of every
// feature map. No tensors in the state dict.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "flash_powder/core/tensor.h"
#include "flash_powder/nn/define.h"
#include "flash_powder/nn/module.h"
#include "flash_powder/vision/models/detection/image_list.h"

namespace fp::vision::models::detection {

/// DefaultBoxGenerator's keyword arguments, with torchvision's defaults.
struct DefaultBoxGeneratorOptions {
  /// The smallest scale of the estimated scales (used without `scales`).
  double min_ratio = 0.15;
  /// The largest scale of the estimated scales (used without `scales`).
  double max_ratio = 0.9;
  /// The scales, one per map and one more; estimated from min_ratio and
  /// max_ratio when absent.
  std::optional<std::vector<double>> scales{};
  /// The pixels between box centres of each map; from the maps' sizes when absent.
  std::optional<std::vector<std::int64_t>> steps{};
  /// Whether the boxes' widths and heights are clipped to [0, 1] (of the image).
  bool clip = true;
};

/// torchvision's DefaultBoxGenerator: for map k, boxes of scale s_k and
/// sqrt(s_k s_k+1) (aspect ratio 1), and of s_k for each of
/// `aspect_ratios[k]` and its inverse, at every position.
class DefaultBoxGenerator : public nn::ModuleBase {
 public:
  /// The boxes of one map per entry of `aspect_ratios`. fp::Error
  /// (BadArgument) for no maps, steps or scales of the wrong length, or a
  /// ratio that is not positive.
  explicit DefaultBoxGenerator(std::vector<std::vector<double>> aspect_ratios,
                               const DefaultBoxGeneratorOptions& options = {});

  void visit(nn::Visitor& visitor) override;
  /// One [sum over maps of H W A, 4] tensor (x1, y1, x2, y2) per image of
  /// `images`, in pixels of `images.tensors`, of `feature_maps`' dtype.
  /// fp::Error (BadArgument) when there are not as many maps as ratio lists.
  std::vector<Tensor> forward(const ImageList& images,
                              const std::vector<TensorView>& feature_maps) const;
  FP_MODULE_CALL()

  /// The boxes per position of each map: 2 + 2 x its aspect ratios.
  std::vector<std::int64_t> num_anchors_per_location() const;

  /// The aspect ratios of each map.
  std::vector<std::vector<double>> aspect_ratios;
  /// The steps, if given.
  std::optional<std::vector<std::int64_t>> steps;
  /// Whether widths and heights are clipped to [0, 1].
  bool clip;
  /// The scales (given or estimated), one per map and one more.
  std::vector<double> scales;
  /// Each map's [A, 2] float32 (width, height) pairs, relative to the image.
  std::vector<Tensor> wh_pairs;

 private:
  Tensor grid_default_boxes(const std::vector<TensorView>& feature_maps, std::int64_t height,
                            std::int64_t width) const;
};

}  // namespace fp::vision::models::detection
