// torchvision/models/detection/generalized_rcnn.py's forward in eval mode.
#include "flash_powder/vision/models/detection/generalized_rcnn.h"

#include <utility>

namespace fp::vision::models::detection {

GeneralizedRCNN::GeneralizedRCNN(BackboneWithFPN backbone, RegionProposalNetwork rpn,
                                 RoIHeads roi_heads, GeneralizedRCNNTransform transform)
    : transform(std::move(transform)),
      backbone(std::move(backbone)),
      rpn(std::move(rpn)),
      roi_heads(std::move(roi_heads)) {}

std::vector<Detection> GeneralizedRCNN::forward(const std::vector<TensorView>& images) const {
  const ImageList batch = transform(images);  // checks every image first
  const std::vector<ImageSize> original_image_sizes = image_sizes_of(images);
  const ops::FeatureMaps features = backbone(batch.tensors);
  const std::vector<Tensor> proposals = rpn(batch, features);
  std::vector<Detection> detections = roi_heads(features, proposals, batch.image_sizes);
  return transform.postprocess(std::move(detections), batch.image_sizes, original_image_sizes);
}

}  // namespace fp::vision::models::detection
