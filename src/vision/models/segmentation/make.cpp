// torchvision/models/_api.py's get_model and list_models over the
// segmentation builders of fp::vision::models::segmentation.
#include "flash_powder/vision/models/segmentation/make.h"

#include <functional>
#include <map>

#include "flash_powder/vision/models/segmentation/deeplabv3.h"
#include "flash_powder/vision/models/segmentation/fcn.h"
#include "flash_powder/vision/models/segmentation/lraspp.h"
#include "vision/models/registry.h"

namespace fp::vision::models::segmentation {
namespace {

using Builder = std::function<std::unique_ptr<SegmentationModel>(const SegmentationOptions&)>;

/// The registry's builder of `build`.
template <class Model>
Builder segmentation_entry(Model (*build)(const SegmentationOptions&)) {
  return models::detail::boxed_builder<SegmentationModel>(build);
}

/// One entry of the registry: torchvision's name and fp's builder of it.
#define FP_SEGMENTATION_MODEL(name) \
  { #name, segmentation_entry(&(name)) }

const std::map<std::string, Builder, std::less<>>& registry() {
  static const std::map<std::string, Builder, std::less<>> builders{
      FP_SEGMENTATION_MODEL(deeplabv3_mobilenet_v3_large),
      FP_SEGMENTATION_MODEL(deeplabv3_resnet101),
      FP_SEGMENTATION_MODEL(deeplabv3_resnet50),
      FP_SEGMENTATION_MODEL(fcn_resnet101),
      FP_SEGMENTATION_MODEL(fcn_resnet50),
      FP_SEGMENTATION_MODEL(lraspp_mobilenet_v3_large),
  };
  return builders;
}

#undef FP_SEGMENTATION_MODEL

}  // namespace

std::unique_ptr<SegmentationModel> make(std::string_view name, const SegmentationOptions& options) {
  return models::detail::lookup(registry(), name,
                                "fp::vision::models::segmentation::make")(options);
}

std::vector<std::string> list_models() {
  return models::detail::names_of(registry());
}

}  // namespace fp::vision::models::segmentation
