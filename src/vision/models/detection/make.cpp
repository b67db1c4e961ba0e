// torchvision/models/_api.py's get_model and list_models over the
// detection builders of fp::vision::models::detection.
#include "flash_powder/vision/models/detection/make.h"

#include <functional>
#include <map>

#include "flash_powder/vision/models/detection/keypoint_rcnn.h"
#include "flash_powder/vision/models/detection/mask_rcnn.h"
#include "vision/models/registry.h"

namespace fp::vision::models::detection {
namespace {

using Builder = std::function<std::unique_ptr<GeneralizedRCNN>(const FasterRCNNOptions&)>;

/// The registry's builder of `build`.
template <class Model>
Builder detection_entry(Model (*build)(const FasterRCNNOptions&)) {
  return models::detail::boxed_builder<GeneralizedRCNN>(build);
}

/// One entry of the registry: torchvision's name and fp's builder of it.
#define FP_DETECTION_MODEL(name) \
  { #name, detection_entry(&(name)) }

const std::map<std::string, Builder, std::less<>>& detection_registry() {
  static const std::map<std::string, Builder, std::less<>> builders{
      FP_DETECTION_MODEL(fasterrcnn_mobilenet_v3_large_320_fpn),
      FP_DETECTION_MODEL(fasterrcnn_mobilenet_v3_large_fpn),
      FP_DETECTION_MODEL(fasterrcnn_resnet50_fpn),
      FP_DETECTION_MODEL(fasterrcnn_resnet50_fpn_v2),
      FP_DETECTION_MODEL(keypointrcnn_resnet50_fpn),
      FP_DETECTION_MODEL(maskrcnn_resnet50_fpn),
  };
  return builders;
}

#undef FP_DETECTION_MODEL

}  // namespace

std::unique_ptr<GeneralizedRCNN> make(std::string_view name, const FasterRCNNOptions& options) {
  return models::detail::lookup(detection_registry(), name,
                                "fp::vision::models::detection::make")(options);
}

std::vector<std::string> list_models() {
  return models::detail::names_of(detection_registry());
}

}  // namespace fp::vision::models::detection
