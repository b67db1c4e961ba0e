// What every detection model of fp::vision::models::detection is: a module
// taking a list of images of any sizes and returning one Detection per
// image (torchvision's eval-mode forward of its detection models), so that
// detection::make can build any of them.
#pragma once

#include <vector>

#include "flash_powder/core/tensor.h"
#include "flash_powder/nn/define.h"
#include "flash_powder/nn/module.h"
#include "flash_powder/vision/models/detection/roi_heads.h"

namespace fp::vision::models::detection {

/// The base of the detection models (GeneralizedRCNN, RetinaNet, FCOS, SSD).
class DetectionModel : public nn::ModuleBase {
 public:
  /// What FP_MODULE's using-declaration names in the models derived from
  /// this one: both forwards stay visible beside the override.
  using fp_forward_base = DetectionModel;

  /// The detections of each image of `images` ([3, H, W] float in [0, 1],
  /// of any sizes), in its own pixels. fp::Error (BadArgument) for no
  /// images or an image that is not [3, H, W] floating point.
  virtual std::vector<Detection> forward(const std::vector<TensorView>& images) const = 0;
  /// The same for a vector of Tensors.
  std::vector<Detection> forward(const std::vector<Tensor>& images) const;
  /// forward(images) as a call of this module (errors name its place).
  template <class Images>
  std::vector<Detection> operator()(const Images& images) const {
    return nn::detail::call_module(*this, [&] { return forward(images); });
  }
};

}  // namespace fp::vision::models::detection
