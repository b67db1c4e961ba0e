// torchvision/models/detection/keypoint_rcnn.py: the keypoint heads,
// KeypointRCNN and its builder (weights=None, weights_backbone=None).
#include "flash_powder/vision/models/detection/keypoint_rcnn.h"

#include <memory>
#include <utility>

#include "flash_powder/base/error.h"
#include "flash_powder/functional/vision.h"
#include "flash_powder/nn/layers/activation.h"
#include "flash_powder/vision/models/resnet.h"

namespace fp::vision::models::detection {
namespace {

constexpr std::int64_t kDefaultKeypoints = 17;

/// The options FasterRCNN takes: num_keypoints is KeypointRCNN's own.
FasterRCNNOptions without_keypoints(FasterRCNNOptions options) {
  if (options.num_keypoints && *options.num_keypoints < 1)
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::detection::KeypointRCNN: num_keypoints should be positive");
  options.num_keypoints.reset();
  return options;
}

}  // namespace

KeypointRCNNHeads::KeypointRCNNHeads(std::int64_t in_channels,
                                     const std::vector<std::int64_t>& layers) {
  std::int64_t next_feature = in_channels;
  for (const std::int64_t out_channels : layers) {
    push(nn::Conv2d(next_feature, out_channels, 3, {.padding = 1})).push(nn::ReLU());
    next_feature = out_channels;
  }
}

KeypointRCNNPredictor::KeypointRCNNPredictor(std::int64_t in_channels, std::int64_t num_keypoints)
    : kps_score_lowres(in_channels, num_keypoints, 4, {.stride = 2, .padding = 1}) {}

Tensor KeypointRCNNPredictor::forward(TensorView input) const {
  return functional::interpolate(kps_score_lowres(input), {.scale_factor = 2.0,
                                                           .mode = "bilinear",
                                                           .align_corners = false,
                                                           .recompute_scale_factor = false});
}

KeypointRCNN::KeypointRCNN(BackboneWithFPN backbone, const FasterRCNNOptions& options)
    : FasterRCNN(std::move(backbone), without_keypoints(options)) {
  constexpr std::int64_t kKeypointLayers = 512;
  const std::int64_t out_channels = this->backbone.out_channels;
  roi_heads.keypoint_roi_pool = ops::MultiScaleRoIAlign({"0", "1", "2", "3"}, 14, 2);
  roi_heads.keypoint_head = std::make_unique<KeypointRCNNHeads>(
      out_channels, std::vector<std::int64_t>(8, kKeypointLayers));
  roi_heads.keypoint_predictor = std::make_unique<KeypointRCNNPredictor>(
      kKeypointLayers, options.num_keypoints.value_or(kDefaultKeypoints));
}

KeypointRCNN keypointrcnn_resnet50_fpn(const FasterRCNNOptions& options) {
  FasterRCNNOptions keypoint_options = options;
  keypoint_options.num_classes = options.num_classes.value_or(2);
  return KeypointRCNN(resnet_fpn_backbone(detail::detection_resnet50(options)), keypoint_options);
}

}  // namespace fp::vision::models::detection
