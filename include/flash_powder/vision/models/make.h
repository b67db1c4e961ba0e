// fp::vision::models::make: any classifier of fp::vision::models by
// torchvision's builder name, like torchvision.models.get_model.
// https://pytorch.org/vision/stable/models.html#listing-and-retrieving-available-models
//
//     std::unique_ptr<fp::nn::Module> net = fp::vision::models::make("resnet50", {.num_classes = 10});
//     net->load_state_dict(fp::safetensors::MappedFile::open("resnet50.safetensors"));
//     fp::Tensor logits = (*net)(batch);  // [N, 10]
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flash_powder/nn/module.h"

namespace fp::vision::models {

/// The keyword arguments that make passes on to a builder (get_model's
/// `**config`). Each builder's own options struct has its defaults.
struct ModelOptions {
  /// The number of classes the classifier maps to (fp::Error when negative).
  std::int64_t num_classes = 1000;
  /// The classifier's dropout probability (the identity in inference); unset
  /// keeps the builder's default. fp::Error for a network without dropout
  /// (ResNet), as torchvision refuses an unexpected keyword.
  std::optional<double> dropout = std::nullopt;
  /// The side of the square images a ViT takes (vit_*'s `image_size`);
  /// fp::Error for another network.
  std::optional<std::int64_t> image_size = std::nullopt;
  /// The height and width of the images MaxViT takes (maxvit_t's
  /// `input_size`); fp::Error for another network.
  std::optional<std::array<std::int64_t, 2>> input_size = std::nullopt;
};

/// torchvision.models.get_model(name, **config): the network `name`
/// builds (default-initialised weights, as `weights=None`); fp::Error naming the
/// known builders for an unknown name, and segmentation::make (segmentation/make.h)
/// for a segmentation model's, detection::make (detection/make.h) for a
/// detection model's.
std::unique_ptr<nn::Module> make(std::string_view name, const ModelOptions& options = {});

/// torchvision.models.list_models(), restricted to the builders
/// fp::vision::models has, sorted by name.
std::vector<std::string> list_models();

}  // namespace fp::vision::models
