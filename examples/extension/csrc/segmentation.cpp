// Segmentation post-processing ops for PyTorch, written with flash_powder:
//
//   torch.ops.fp_segmentation.overlay(image, probs, palette=None, alpha=0.5)
//   torch.ops.fp_segmentation.label_map(logits, threshold=0.5, ignore_index=255)
//   torch.ops.fp_segmentation.mask_low_confidence_(labels, confidence, threshold, ignore_index=255)
//
// Built once against torch 2.13's headers, this library loads into every
// torch from 2.11 on (torch.ops.load_library), and a C++ program that links
// it calls the same ops through fp::dispatch. fp_segmentation/__init__.py
// adds the fake kernels torch.compile and torch.export need.
#include <flash_powder/flash_powder.h>
#include <flash_powder/library/library.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>

namespace {

std::string shape_of(fp::TensorView t) {
  std::string text = "[";
  for (std::int64_t i = 0; i < t.dim(); ++i)
    text += (i ? ", " : "") + std::to_string(t.size(i));
  return text + "]";
}

void require(bool condition, const std::string& message) {
  if (!condition) throw fp::Error(fp::ErrorCode::BadArgument, message);
}

/// torchvision's palette for `count` classes (draw_segmentation_masks'
/// _generate_color_palette): class k gets (k * [2^25-1, 2^15-1, 2^21-1]) % 255.
fp::Tensor default_palette(std::int64_t count) {
  const fp::Tensor weights =
      fp::tensor({std::int64_t{33554431}, std::int64_t{32767}, std::int64_t{2097151}});
  const fp::Tensor classes = fp::arange(count).reshape({count, 1});
  return (classes * weights).remainder(255).to(fp::DType::U8);
}

/// Blends the expected colour of each pixel's class distribution onto an image.
/// image [3, H, W] (uint8 or floating), probs [K, H, W] floating, palette
/// [K, 3] (default: torchvision's). Returns an image of image's dtype.
fp::Tensor overlay(fp::TensorView image, fp::TensorView probs,
                   std::optional<fp::TensorView> palette, double alpha) {
  require(image.dim() == 3 && image.size(0) == 3,
          "overlay: image must be [3, H, W], got " + shape_of(image));
  require(probs.dim() == 3, "overlay: probs must be [K, H, W], got " + shape_of(probs));
  require(fp::is_floating_point(probs.dtype()),
          "overlay: probs must be floating point, got " + std::string(fp::name(probs.dtype())));
  require(probs.size(1) == image.size(1) && probs.size(2) == image.size(2),
          "overlay: probs " + shape_of(probs) + " and image " + shape_of(image) +
              " differ in height or width");
  require(image.dtype() == fp::DType::U8 || fp::is_floating_point(image.dtype()),
          "overlay: image must be uint8 or floating point, got " +
              std::string(fp::name(image.dtype())));
  require(alpha >= 0.0 && alpha <= 1.0,
          "overlay: alpha must be in [0, 1], got " + std::to_string(alpha));
  const std::int64_t classes = probs.size(0);
  const fp::Tensor colours = palette ? palette->to_owned() : default_palette(classes);
  require(colours.dim() == 2 && colours.size(0) == classes && colours.size(1) == 3,
          "overlay: palette must be [K, 3] with K = " + std::to_string(classes) + " classes, got " +
              shape_of(colours));

  const fp::DType compute = probs.dtype();
  const std::int64_t height = image.size(1), width = image.size(2);
  const fp::Tensor flat = probs.reshape({classes, height * width});
  const fp::Tensor colour = colours.to(fp::TensorOptions(compute, probs.device()))
                                .transpose(0, 1)
                                .matmul(flat)
                                .reshape({3, height, width});
  const fp::Tensor blended = image.to(compute) * (1.0 - alpha) + colour * alpha;
  // Contiguous, as the fake kernel (fp_segmentation/__init__.py) promises.
  if (image.dtype() == fp::DType::U8) {
    return blended.round().clamp(0, 255).to(fp::DType::U8).contiguous();
  }
  return blended.to(image.dtype()).contiguous();
}

/// Sets the label of every pixel whose confidence is below `threshold` to
/// `ignore_index`, in place.
void mask_low_confidence_(fp::TensorMutView labels, fp::TensorView confidence, double threshold,
                          std::int64_t ignore_index) {
  require(fp::is_integral(labels.dtype()) && labels.dtype() != fp::DType::Bool,
          "mask_low_confidence_: labels must be an integer tensor, got " +
              std::string(fp::name(labels.dtype())));
  require(fp::is_floating_point(confidence.dtype()),
          "mask_low_confidence_: confidence must be floating point, got " +
              std::string(fp::name(confidence.dtype())));
  require(labels.sizes().size() == confidence.sizes().size() &&
              std::equal(labels.sizes().begin(), labels.sizes().end(), confidence.sizes().begin()),
          "mask_low_confidence_: labels " + shape_of(labels) + " and confidence " +
              shape_of(confidence) + " differ in shape");
  labels.masked_fill_(confidence.lt(threshold), ignore_index);
}

/// Per pixel: the most likely class and its softmax probability, over the
/// class dimension of logits [K, H, W] or [B, K, H, W]; pixels below
/// `threshold` get `ignore_index`.
std::tuple<fp::Tensor, fp::Tensor> label_map(fp::TensorView logits, double threshold,
                                             std::int64_t ignore_index) {
  require(logits.dim() == 3 || logits.dim() == 4,
          "label_map: logits must be [K, H, W] or [B, K, H, W], got " + shape_of(logits));
  require(fp::is_floating_point(logits.dtype()),
          "label_map: logits must be floating point, got " + std::string(fp::name(logits.dtype())));
  require(logits.size(-3) > 0, "label_map: logits have no classes");
  const fp::Tensor probs = fp::functional::softmax(logits, -3);
  auto [confidence, labels] = probs.max(-3);
  mask_low_confidence_(labels.i_mut(fp::all), confidence, threshold, ignore_index);
  return {std::move(labels), std::move(confidence)};
}

}  // namespace

FP_LIBRARY(fp_segmentation, m) {
  // The Python package registers the fake kernels (torch 2.13 and later
  // require this link; an older torch cannot take it and does not ask).
  m.set_python_module("fp_segmentation");
  m.def("overlay(Tensor image, Tensor probs, Tensor? palette=None, float alpha=0.5) -> Tensor");
  m.def(
      "label_map(Tensor logits, float threshold=0.5, int ignore_index=255) "
      "-> (Tensor labels, Tensor confidence)");
  m.def(
      "mask_low_confidence_(Tensor(a!) labels, Tensor confidence, float threshold, "
      "int ignore_index=255) -> ()");
}

// Written with flash_powder's ops, the same kernels run on CPU and CUDA
// tensors. (Shapes for torch.compile come from the fake kernels in Python;
// a Meta kernel here would conflict with them.)
FP_LIBRARY_IMPL(fp_segmentation, CPU, m) {
  m.impl<overlay>("overlay");
  m.impl<label_map>("label_map");
  m.impl<mask_low_confidence_>("mask_low_confidence_");
}

FP_LIBRARY_IMPL(fp_segmentation, CUDA, m) {
  m.impl<overlay>("overlay");
  m.impl<label_map>("label_map");
  m.impl<mask_low_confidence_>("mask_low_confidence_");
}
