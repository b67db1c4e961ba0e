// The preprocessing of torchvision's pretrained models: what
// `weights.transforms()` does (torchvision.transforms._presets'
// ImageClassification and SemanticSegmentation), step by step and bit for
// bit, on fp::image tensors, and each builder's own settings by name.
// https://pytorch.org/vision/stable/models.html#using-the-pre-trained-models
//
//     fp::Tensor image = fp::image::read_image("cat.jpg");           // [3, H, W] uint8
//     fp::Tensor batch = fp::vision::transforms::image_classification(image).unsqueeze(0);
//     fp::Tensor other = fp::vision::transforms::preset("inception_v3")(image);  // 342 -> 299
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flash_powder/core/tensor.h"
#include "flash_powder/image/convert.h"

namespace fp::vision::transforms {

/// The keyword arguments of ImageClassification, with its defaults (ImageNet's).
struct ImageClassificationOptions {
  /// The side of the central square cropped.
  std::int64_t crop_size = 224;
  /// The shorter side after resizing.
  std::int64_t resize_size = 256;
  /// The per-channel means subtracted.
  std::array<double, 3> mean = {0.485, 0.456, 0.406};
  /// The per-channel standard deviations divided by.
  std::array<double, 3> std = {0.229, 0.224, 0.225};
  /// How the image is resized.
  image::Interpolation interpolation = image::Interpolation::Bilinear;
  /// Antialias when downsampling.
  bool antialias = true;
};

/// The size torchvision.transforms.functional.resize(image, [size]) gives a
/// height x width image: the shorter side becomes `size`, the longer keeps
/// the aspect ratio (rounded down). Returns {height, width}.
std::array<std::int64_t, 2> resized_size(std::int64_t height, std::int64_t width,
                                         std::int64_t size);

/// torchvision.transforms.functional.resize(image, [size], interpolation,
/// antialias) on a [..., H, W] tensor: the shorter side becomes `size`. A
/// uint8 image is resized in float32 (bicubic clamped to [0, 255]) and rounded
/// back, as that function does
/// (its v2 namesake, fp::image::resize, keeps uint8 and may differ by one).
Tensor resize_shorter_side(TensorView image, std::int64_t size,
                           const image::ResizeOptions& options = {});

/// torchvision.transforms.functional.center_crop(image, [height, width]):
/// the centre of a [..., H, W] tensor, zero-padded first where it is smaller. A new Tensor.
Tensor center_crop(TensorView image, std::int64_t height, std::int64_t width);

/// torchvision.transforms.functional.normalize: (image - mean) / std per
/// channel of a floating [..., 3, H, W] tensor (mean and std in its dtype).
Tensor normalize(TensorView image, const std::array<double, 3>& mean,
                 const std::array<double, 3>& std);

/// `weights.transforms()(image)` of a torchvision ImageNet classifier: resize
/// the shorter side to 256, crop the central 224x224, scale to [0, 1] (uint8
/// / 255), normalize. A [3, H, W] or [N, 3, H, W] uint8 or float image ->
/// float32 (a float image keeps its dtype). Throws fp::Error for another
/// shape or dtype.
Tensor image_classification(TensorView image, const ImageClassificationOptions& options = {});

/// The keyword arguments of SemanticSegmentation (resize_size has no default
/// there; 520 is what every torchvision segmentation model's weights use).
struct SemanticSegmentationOptions {
  /// The shorter side after resizing; absent: not resized.
  std::optional<std::int64_t> resize_size = 520;
  /// The per-channel means subtracted.
  std::array<double, 3> mean = {0.485, 0.456, 0.406};
  /// The per-channel standard deviations divided by.
  std::array<double, 3> std = {0.229, 0.224, 0.225};
  /// How the image is resized.
  image::Interpolation interpolation = image::Interpolation::Bilinear;
  /// Antialias when downsampling.
  bool antialias = true;
};

/// `weights.transforms()(image)` of a torchvision segmentation model
/// (SemanticSegmentation): resize the shorter side, scale to [0, 1] (uint8 /
/// 255), normalize; no crop. Shapes, dtypes and errors as image_classification.
Tensor semantic_segmentation(TensorView image, const SemanticSegmentationOptions& options = {});

/// Which of torchvision's presets a model's weights use.
enum class PresetKind { ImageClassification, SemanticSegmentation };

/// A model's `weights.transforms()`: the preset and its settings. Call it on
/// an image like the Python object.
struct Preset {
  /// Which preset; the options of the other are their defaults.
  PresetKind kind = PresetKind::ImageClassification;
  /// The settings when kind is ImageClassification.
  ImageClassificationOptions image_classification;
  /// The settings when kind is SemanticSegmentation.
  SemanticSegmentationOptions semantic_segmentation;
  /// image_classification or semantic_segmentation of `image` with these settings.
  Tensor operator()(TensorView image) const;
};

/// `torchvision.models.get_model_weights(model).DEFAULT.transforms()`: the
/// preprocessing of a torchvision builder's default weights, by builder
/// name (every classification and segmentation builder of torchvision,
/// whether or not fp::vision::models has it; the table is generated from
/// torchvision by tools/generate_vision_presets.py). fp::Error naming the
/// known ones for an unknown name.
Preset preset(std::string_view model);

/// The names preset() knows, sorted.
std::vector<std::string> preset_names();

}  // namespace fp::vision::transforms
