// floatify and scale_to_domain: from pixel integers to the floats models and
// displays want.
#include "flash_powder/base/dtype.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/image/convert.h"
#include "messages.h"

namespace fp::image {

Tensor floatify(TensorView image, const FloatifyOptions& options) {
  if (!image.is_defined())
    detail::fail(ErrorCode::BadArgument, "floatify", "the image", "the tensor is undefined");
  if (!is_floating_point(options.dtype)) {
    detail::fail(ErrorCode::BadArgument, "floatify", "the options",
                 "dtype " + std::string(name(options.dtype)) + " is not a floating dtype");
  }
  const Device device = options.device.value_or(image.device());
  const DType from = image.dtype();
  if (is_floating_point(from)) return image.to(TensorOptions(options.dtype, device));
  if (from != DType::U8 && from != DType::U16) {
    detail::fail(ErrorCode::BadArgument, "floatify", "the image",
                 "expected uint8 or uint16 pixels (or floats), got " + std::string(name(from)));
  }
  // torchvision v2: image.to(dtype).mul_(1.0 / max_value), in that order.
  const double scale = 1.0 / (from == DType::U8 ? 255.0 : 65535.0);
  Tensor converted = image.to(TensorOptions(options.dtype, device));
  converted.mul_(scale);
  return converted;
}

Tensor scale_to_domain(TensorView image) {
  if (!image.is_defined())
    detail::fail(ErrorCode::BadArgument, "scale_to_domain", "the image", "the tensor is undefined");
  if (image.numel() == 0)
    detail::fail(ErrorCode::BadArgument, "scale_to_domain", "the image", "the tensor is empty");
  if (image.dtype() == DType::Bool || is_complex(image.dtype())) {
    detail::fail(ErrorCode::BadArgument, "scale_to_domain", "the image",
                 "expected a real tensor, got " + std::string(name(image.dtype())));
  }
  const DType dtype = is_floating_point(image.dtype()) ? image.dtype() : DType::F32;
  Tensor values = image.to(dtype);
  const Tensor low = values.min();
  const Tensor range = values.max() - low;
  // A constant image has no range: it maps to zeros rather than to NaN.
  return (values - low) / range.where(range.gt(0), fp::ones_like(range));
}

}  // namespace fp::image
