// torchvision/models/_api.py's get_model and list_models over the
// detection builders of fp::vision::models::detection.
#include "flash_powder/vision/models/detection/make.h"

#include <algorithm>
#include <functional>
#include <map>
#include <string>

#include "flash_powder/base/error.h"
#include "flash_powder/vision/models/detection/keypoint_rcnn.h"
#include "flash_powder/vision/models/detection/mask_rcnn.h"
#include "flash_powder/vision/models/detection/ssdlite.h"
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
      FP_DETECTION_MODEL(maskrcnn_resnet50_fpn_v2),
  };
  return builders;
}

using SSDBuilder = std::function<std::unique_ptr<SSD>(const SSDOptions&)>;

const std::map<std::string, SSDBuilder, std::less<>>& ssd_registry() {
  static const std::map<std::string, SSDBuilder, std::less<>> builders{
      {"ssd300_vgg16", models::detail::boxed_builder<SSD>(&ssd300_vgg16)},
      {"ssdlite320_mobilenet_v3_large",
       models::detail::boxed_builder<SSD>(&ssdlite320_mobilenet_v3_large)},
  };
  return builders;
}

#undef FP_DETECTION_MODEL

}  // namespace

std::unique_ptr<GeneralizedRCNN> make(std::string_view name, const FasterRCNNOptions& options) {
  if (ssd_registry().contains(name))
    throw Error(ErrorCode::BadArgument,
                "fp::vision::models::detection::make: " + std::string(name) +
                    " is an SSD model; build it with "
                    "fp::vision::models::detection::make_ssd");
  return models::detail::lookup(detection_registry(), name,
                                "fp::vision::models::detection::make")(options);
}

std::unique_ptr<SSD> make_ssd(std::string_view name, const SSDOptions& options) {
  return models::detail::lookup(ssd_registry(), name,
                                "fp::vision::models::detection::make_ssd")(options);
}

std::vector<std::string> list_models() {
  std::vector<std::string> names = models::detail::names_of(detection_registry());
  const std::vector<std::string> ssds = models::detail::names_of(ssd_registry());
  names.insert(names.end(), ssds.begin(), ssds.end());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace fp::vision::models::detection
