// torchvision/models/_api.py's get_model and list_models over the builders
// of fp::vision::models.
#include "flash_powder/vision/models/make.h"

#include <algorithm>
#include <functional>
#include <map>
#include <string>

#include "flash_powder/base/error.h"
#include "flash_powder/vision/models.h"
#include "vision/models/registry.h"

namespace fp::vision::models {
namespace {

using Builder = std::function<std::unique_ptr<nn::Module>(const ModelOptions&)>;

/// fp::Error: the builder `name` has no keyword `option`, as torchvision
/// refuses an unexpected keyword.
[[noreturn]] void refuse_option(std::string_view name, const char* option) {
  throw Error(ErrorCode::BadArgument,
              "fp::vision::models::make: " + std::string(name) + " has no " + option + " option");
}

/// A builder's own options from make's: num_classes always; dropout,
/// image_size and input_size where the builder has them.
template <class Options>
Options options_of(std::string_view name, const ModelOptions& options) {
  Options converted;
  converted.num_classes = options.num_classes;
  if (options.dropout) {
    if constexpr (requires { converted.dropout; })
      converted.dropout = *options.dropout;
    else
      refuse_option(name, "dropout");
  }
  if (options.image_size) {
    if constexpr (requires { converted.image_size; })
      converted.image_size = *options.image_size;
    else
      refuse_option(name, "image_size");
  }
  if (options.input_size) {
    if constexpr (requires { converted.input_size; })
      converted.input_size = *options.input_size;
    else
      refuse_option(name, "input_size");
  }
  return converted;
}

template <class Model, class Options>
Builder builder(std::string_view name, Model (*build)(const Options&)) {
  return [name, build](const ModelOptions& options) -> std::unique_ptr<nn::Module> {
    return std::make_unique<Model>(build(options_of<Options>(name, options)));
  };
}

/// One entry of the registry: torchvision's name and fp's builder of it.
#define FP_MODEL(name) \
  { #name, builder(#name, &(name)) }

const std::map<std::string, Builder, std::less<>>& registry() {
  static const std::map<std::string, Builder, std::less<>> builders{
      FP_MODEL(alexnet),
      FP_MODEL(convnext_base),
      FP_MODEL(convnext_large),
      FP_MODEL(convnext_small),
      FP_MODEL(convnext_tiny),
      FP_MODEL(densenet121),
      FP_MODEL(densenet161),
      FP_MODEL(densenet169),
      FP_MODEL(densenet201),
      FP_MODEL(efficientnet_b0),
      FP_MODEL(efficientnet_b1),
      FP_MODEL(efficientnet_b2),
      FP_MODEL(efficientnet_b3),
      FP_MODEL(efficientnet_b4),
      FP_MODEL(efficientnet_b5),
      FP_MODEL(efficientnet_b6),
      FP_MODEL(efficientnet_b7),
      FP_MODEL(efficientnet_v2_l),
      FP_MODEL(efficientnet_v2_m),
      FP_MODEL(efficientnet_v2_s),
      FP_MODEL(googlenet),
      FP_MODEL(inception_v3),
      FP_MODEL(maxvit_t),
      FP_MODEL(mnasnet0_5),
      FP_MODEL(mnasnet0_75),
      FP_MODEL(mnasnet1_0),
      FP_MODEL(mnasnet1_3),
      FP_MODEL(mobilenet_v2),
      FP_MODEL(mobilenet_v3_large),
      FP_MODEL(mobilenet_v3_small),
      FP_MODEL(regnet_x_16gf),
      FP_MODEL(regnet_x_1_6gf),
      FP_MODEL(regnet_x_32gf),
      FP_MODEL(regnet_x_3_2gf),
      FP_MODEL(regnet_x_400mf),
      FP_MODEL(regnet_x_800mf),
      FP_MODEL(regnet_x_8gf),
      FP_MODEL(regnet_y_128gf),
      FP_MODEL(regnet_y_16gf),
      FP_MODEL(regnet_y_1_6gf),
      FP_MODEL(regnet_y_32gf),
      FP_MODEL(regnet_y_3_2gf),
      FP_MODEL(regnet_y_400mf),
      FP_MODEL(regnet_y_800mf),
      FP_MODEL(regnet_y_8gf),
      FP_MODEL(resnet18),
      FP_MODEL(resnet34),
      FP_MODEL(resnet50),
      FP_MODEL(resnet101),
      FP_MODEL(resnet152),
      FP_MODEL(resnext50_32x4d),
      FP_MODEL(resnext101_32x8d),
      FP_MODEL(resnext101_64x4d),
      FP_MODEL(shufflenet_v2_x0_5),
      FP_MODEL(shufflenet_v2_x1_0),
      FP_MODEL(shufflenet_v2_x1_5),
      FP_MODEL(shufflenet_v2_x2_0),
      FP_MODEL(squeezenet1_0),
      FP_MODEL(squeezenet1_1),
      FP_MODEL(swin_t),
      FP_MODEL(swin_s),
      FP_MODEL(swin_b),
      FP_MODEL(swin_v2_t),
      FP_MODEL(swin_v2_s),
      FP_MODEL(swin_v2_b),
      FP_MODEL(vgg11),
      FP_MODEL(vgg11_bn),
      FP_MODEL(vgg13),
      FP_MODEL(vgg13_bn),
      FP_MODEL(vgg16),
      FP_MODEL(vgg16_bn),
      FP_MODEL(vgg19),
      FP_MODEL(vgg19_bn),
      FP_MODEL(vit_b_16),
      FP_MODEL(vit_b_32),
      FP_MODEL(vit_l_16),
      FP_MODEL(vit_l_32),
      FP_MODEL(vit_h_14),
      FP_MODEL(wide_resnet50_2),
      FP_MODEL(wide_resnet101_2),
  };
  return builders;
}

#undef FP_MODEL

}  // namespace

std::unique_ptr<nn::Module> make(std::string_view name, const ModelOptions& options) {
  // get_model covers the segmentation and detection models too; theirs are
  // other makes, as their forwards return a SegmentationOutput and Detections.
  const std::vector<std::string> segmenters = segmentation::list_models();
  if (std::find(segmenters.begin(), segmenters.end(), name) != segmenters.end())
    throw Error(ErrorCode::BadArgument, "fp::vision::models::make: " + std::string(name) +
                                            " is a segmentation model; build it with "
                                            "fp::vision::models::segmentation::make");
  const std::vector<std::string> detectors = detection::list_models();
  if (std::find(detectors.begin(), detectors.end(), name) != detectors.end())
    throw Error(ErrorCode::BadArgument, "fp::vision::models::make: " + std::string(name) +
                                            " is a detection model; build it with "
                                            "fp::vision::models::detection::make");
  return detail::lookup(registry(), name, "fp::vision::models::make")(options);
}

std::vector<std::string> list_models() {
  return detail::names_of(registry());
}

}  // namespace fp::vision::models
