// What torchvision/models/segmentation/_utils.py gives the segmentation
// models: their common forward (backbone features -> classifier -> upsampled
// to the input size) and what it returns.
//
// torchvision's segmentation models return an OrderedDict of "out" and, when
// built with aux_loss, "aux"; here a SegmentationOutput with the same two
// tensors ([N, num_classes, H, W] each, H and W the input's):
//
//     auto net = fp::vision::models::segmentation::deeplabv3_resnet50({.aux_loss = true});
//     net.load_state_dict(fp::safetensors::MappedFile::open("deeplabv3_resnet50.safetensors"));
//     fp::vision::models::segmentation::SegmentationOutput result = net(batch);
//     fp::Tensor labels = result.out.argmax(1);  // [N, H, W]
//
// torchvision's pretrained weights carry the auxiliary head (aux_loss=True
// is what its builders set when given weights): build with `.aux_loss = true`
// to load them strictly.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "flash_powder/core/tensor.h"
#include "flash_powder/nn/define.h"
#include "flash_powder/nn/layers/containers.h"
#include "flash_powder/nn/module.h"
#include "flash_powder/vision/models/intermediate_layer_getter.h"

namespace fp::vision::models::segmentation {

/// The keyword arguments of torchvision's segmentation builders (with
/// `weights=None, weights_backbone=None`: the weights are loaded separately).
struct SegmentationOptions {
  /// The number of classes scored per pixel, background included (VOC's 21).
  std::int64_t num_classes = 21;
  /// Whether the network has the auxiliary classifier (an FCNHead on an
  /// earlier stage), whose result is SegmentationOutput::aux.
  bool aux_loss = false;
};

/// What a segmentation model returns: torchvision's `{"out": ..., "aux": ...}`.
struct SegmentationOutput {
  /// The classifier's scores, [N, num_classes, H, W] at the input's size.
  Tensor out;
  /// The auxiliary classifier's, the same shape; absent without aux_loss.
  std::optional<Tensor> aux;
};

/// The base of the segmentation models: a module whose forward returns a
/// SegmentationOutput, so that segmentation::make can build any of them.
class SegmentationModel : public nn::ModuleBase {
 public:
  /// [N, 3, H, W] float images -> per-pixel class scores at the same size.
  virtual SegmentationOutput forward(TensorView input) const = 0;
  FP_MODULE_CALL()
};

/// torchvision.models.segmentation._utils._SimpleSegmentationModel (FCN's
/// and DeepLabV3's forward): the backbone's "out" features through
/// `classifier`, and its "aux" ones through `aux_classifier` when there is
/// one, each upsampled bilinearly to the input's size.
class SimpleSegmentationModel : public SegmentationModel {
 public:
  /// The network of these parts; `aux_classifier` null for none. fp::Error
  /// for a null classifier.
  SimpleSegmentationModel(IntermediateLayerGetter backbone, std::unique_ptr<nn::Module> classifier,
                          std::unique_ptr<nn::Module> aux_classifier);

  FP_MODULE(backbone, classifier, aux_classifier)
  SegmentationOutput forward(TensorView input) const override;

  /// Returns the features "out" (and "aux").
  IntermediateLayerGetter backbone;
  /// The head on the "out" features (FCNHead, DeepLabHead).
  std::unique_ptr<nn::Module> classifier;
  /// The head on the "aux" features (FCNHead; null, without state-dict keys, when absent).
  std::unique_ptr<nn::Module> aux_classifier;
};

/// torchvision's final `F.interpolate(x, size=(height, width), mode="bilinear",
/// align_corners=False)` of a segmentation head. A new Tensor.
Tensor upsample_to(TensorView x, std::int64_t height, std::int64_t width);

}  // namespace fp::vision::models::segmentation
