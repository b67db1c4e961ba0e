// torchvision/models/_api.py's get_model and list_models over the
// detection builders of fp::vision::models::detection.
#include "flash_powder/vision/models/detection/make.h"

#include <functional>
#include <map>
#include <string>
#include <type_traits>
#include <variant>

#include "flash_powder/base/error.h"
#include "flash_powder/vision/models/detection/fcos.h"
#include "flash_powder/vision/models/detection/keypoint_rcnn.h"
#include "flash_powder/vision/models/detection/mask_rcnn.h"
#include "flash_powder/vision/models/detection/ssdlite.h"
#include "vision/models/registry.h"

namespace fp::vision::models::detection {
namespace {

/// A builder of one family's models, by the options it takes.
template <class Options>
using FamilyBuilder = std::function<std::unique_ptr<DetectionModel>(const Options&)>;

/// A builder of any family.
using Builder = std::variant<FamilyBuilder<FasterRCNNOptions>, FamilyBuilder<RetinaNetOptions>,
                             FamilyBuilder<SSDOptions>>;

/// The registry's builder of `build`.
template <class Model, class Options>
Builder detection_entry(Model (*build)(const Options&)) {
  return FamilyBuilder<Options>(models::detail::boxed_builder<DetectionModel>(build));
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
      FP_DETECTION_MODEL(fcos_resnet50_fpn),
      FP_DETECTION_MODEL(keypointrcnn_resnet50_fpn),
      FP_DETECTION_MODEL(maskrcnn_resnet50_fpn),
      FP_DETECTION_MODEL(maskrcnn_resnet50_fpn_v2),
      FP_DETECTION_MODEL(retinanet_resnet50_fpn),
      FP_DETECTION_MODEL(retinanet_resnet50_fpn_v2),
      FP_DETECTION_MODEL(ssd300_vgg16),
      FP_DETECTION_MODEL(ssdlite320_mobilenet_v3_large),
  };
  return builders;
}

#undef FP_DETECTION_MODEL

constexpr std::string_view kMake = "fp::vision::models::detection::make";

/// The options a FamilyBuilder takes.
template <class Family>
struct OptionsOf;
template <class Options>
struct OptionsOf<FamilyBuilder<Options>> {
  using type = Options;
};

/// The C++ name of `Options`, for messages.
template <class Options>
constexpr const char* options_name() {
  if constexpr (std::is_same_v<Options, FasterRCNNOptions>) return "FasterRCNNOptions";
  if constexpr (std::is_same_v<Options, SSDOptions>) return "SSDOptions";
  return "RetinaNetOptions";
}

/// `name`'s model built with `options`, when its family takes them.
template <class Options>
std::unique_ptr<DetectionModel> make_with(std::string_view name, const Options& options) {
  const Builder& builder = models::detail::lookup(detection_registry(), name, kMake);
  return std::visit(
      [&](const auto& build) -> std::unique_ptr<DetectionModel> {
        using Taken = typename OptionsOf<std::decay_t<decltype(build)>>::type;
        if constexpr (std::is_same_v<Taken, Options>) {
          return build(options);
        } else {
          throw Error(ErrorCode::BadArgument, std::string(kMake) + ": " + std::string(name) +
                                                  " takes " + options_name<Taken>() + ", not " +
                                                  options_name<Options>());
        }
      },
      builder);
}

}  // namespace

std::unique_ptr<DetectionModel> make(std::string_view name) {
  const Builder& builder = models::detail::lookup(detection_registry(), name, kMake);
  return std::visit(
      [](const auto& build) {
        using Options = typename OptionsOf<std::decay_t<decltype(build)>>::type;
        return build(Options{});
      },
      builder);
}

std::unique_ptr<DetectionModel> make(std::string_view name, const FasterRCNNOptions& options) {
  return make_with(name, options);
}

std::unique_ptr<DetectionModel> make(std::string_view name, const RetinaNetOptions& options) {
  return make_with(name, options);
}

std::unique_ptr<DetectionModel> make(std::string_view name, const SSDOptions& options) {
  return make_with(name, options);
}

std::vector<std::string> list_models() {
  return models::detail::names_of(detection_registry());
}

}  // namespace fp::vision::models::detection
