// torchvision.models.detection.rpn: RPNHead and RegionProposalNetwork, in
// inference (the proposals of each image; no losses). Keys "head.conv.0.0.weight",
// "head.cls_logits.weight", "head.bbox_pred.bias".
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "flash_powder/core/tensor.h"
#include "flash_powder/nn/define.h"
#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/layers/conv.h"
#include "flash_powder/nn/module.h"
#include "flash_powder/vision/models/detection/anchor_utils.h"
#include "flash_powder/vision/models/detection/box_coder.h"
#include "flash_powder/vision/models/detection/image_list.h"
#include "flash_powder/vision/ops/feature_pyramid_network.h"

namespace fp::vision::models::detection {

/// torchvision's RPNHead: `conv_depth` 3x3 convolutions with ReLU, then
/// objectness logits and box deltas for each anchor of each position.
class RPNHead : public nn::ModuleBase {
 public:
  /// A head over `in_channels` features for `num_anchors` anchors per position.
  RPNHead(std::int64_t in_channels, std::int64_t num_anchors, std::int64_t conv_depth = 1);

  FP_MODULE(conv, cls_logits, bbox_pred)
  /// Per map of `x`: ([N, A, H, W] logits, [N, 4 A, H, W] deltas).
  std::pair<std::vector<Tensor>, std::vector<Tensor>> forward(
      const std::vector<TensorView>& x) const;

  /// The Conv2dNormActivations (no norm) in a Sequential.
  nn::Sequential conv;
  /// 1x1 convolution to one objectness logit per anchor.
  nn::Conv2d cls_logits;
  /// 1x1 convolution to four deltas per anchor.
  nn::Conv2d bbox_pred;
};

/// RegionProposalNetwork's inference settings (torchvision's "testing" values).
struct RPNOptions {
  /// The most proposals kept per map before NMS (rpn_pre_nms_top_n_test).
  std::int64_t pre_nms_top_n = 1000;
  /// The most proposals kept per image after NMS (rpn_post_nms_top_n_test).
  std::int64_t post_nms_top_n = 1000;
  /// NMS's IoU threshold (rpn_nms_thresh).
  double nms_thresh = 0.7;
  /// The least objectness probability kept (rpn_score_thresh).
  double score_thresh = 0.0;
};

/// torchvision's RegionProposalNetwork in eval mode: the head's deltas
/// decoded on the anchors, the best `pre_nms_top_n` of each map, clipped,
/// small and unlikely ones dropped, NMS per map, the best `post_nms_top_n`.
class RegionProposalNetwork : public nn::ModuleBase {
 public:
  /// Proposals from `anchor_generator`'s anchors moved by `head`'s deltas.
  /// fp::Error (BadArgument) for a negative top n or a threshold outside [0, 1].
  RegionProposalNetwork(AnchorGenerator anchor_generator, RPNHead head,
                        const RPNOptions& options = {});

  FP_MODULE(anchor_generator, head)
  /// One [P, 4] float tensor of proposals (x1, y1, x2, y2) per image of
  /// `images`, best first, from `features` (every map, finest first).
  std::vector<Tensor> forward(const ImageList& images, const ops::FeatureMaps& features) const;

  /// Makes the anchors.
  AnchorGenerator anchor_generator;
  /// Scores and moves them.
  RPNHead head;
  /// Decodes the deltas (weights 1, 1, 1, 1).
  BoxCoder box_coder;
  /// The inference settings.
  RPNOptions options;
  /// Proposals smaller than this (in either side) are dropped.
  double min_size = 1e-3;

 private:
  std::vector<Tensor> filter_proposals(
      const Tensor& proposals, const Tensor& objectness, const std::vector<ImageSize>& image_shapes,
      const std::vector<std::int64_t>& num_anchors_per_level) const;
};

}  // namespace fp::vision::models::detection
