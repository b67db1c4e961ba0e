// torchvision.models.detection.anchor_utils.AnchorGenerator: the anchors of
// the region proposal network, sizes x aspect ratios at every position of
// every feature map. No tensors in the state dict.
#pragma once

#include <cstdint>
#include <vector>

#include "flash_powder/core/tensor.h"
#include "flash_powder/nn/define.h"
#include "flash_powder/nn/module.h"
#include "flash_powder/vision/models/detection/image_list.h"

namespace fp::vision::models::detection {

/// torchvision's AnchorGenerator: for feature map i, `sizes[i]` x
/// `aspect_ratios[i]` anchors (aspect ratio = height / width) per position.
class AnchorGenerator : public nn::ModuleBase {
 public:
  /// torchvision's default: one map, sizes (128, 256, 512), ratios (0.5, 1, 2).
  AnchorGenerator();
  /// The anchors of each map. fp::Error (BadArgument) when the lists differ
  /// in length or one is empty.
  AnchorGenerator(std::vector<std::vector<std::int64_t>> sizes,
                  std::vector<std::vector<double>> aspect_ratios);

  void visit(nn::Visitor& visitor) override;
  /// One [sum over maps of H W A, 4] float32 tensor per image of
  /// `images`: the anchors of every map of `feature_maps` (finest first),
  /// in pixels of `images.tensors`. fp::Error (BadArgument) when there are
  /// not as many maps as sizes.
  std::vector<Tensor> forward(const ImageList& images,
                              const std::vector<TensorView>& feature_maps) const;
  FP_MODULE_CALL()

  /// The anchors per position of each map: sizes x aspect ratios.
  std::vector<std::int64_t> num_anchors_per_location() const;
  /// torchvision's generate_anchors: [ratios x scales, 4] zero-centred
  /// anchors, rounded.
  static Tensor generate_anchors(const std::vector<std::int64_t>& scales,
                                 const std::vector<double>& aspect_ratios);

  /// The anchor sizes of each map.
  std::vector<std::vector<std::int64_t>> sizes;
  /// The aspect ratios of each map.
  std::vector<std::vector<double>> aspect_ratios;
  /// generate_anchors of each map.
  std::vector<Tensor> cell_anchors;
};

}  // namespace fp::vision::models::detection
