// resize: torchvision.transforms.v2.functional.resize on tensors, the same
// ATen interpolate kernels called the same way. uint8 goes through ATen's
// uint8 kernels wherever torchvision sends it there (a float round trip
// differs by one on 10-21 % of pixels), and through float32 + round where
// torchvision does that.
#include <array>
#include <string>

#include "flash_powder/abi/runtime.h"
#include "flash_powder/aten/aten.h"
#include "flash_powder/base/dtype.h"
#include "flash_powder/image/convert.h"
#include "messages.h"

namespace fp::image {

namespace {

/// torchvision's _do_native_uint8_resize_on_cpu (plus nearest, native everywhere).
bool native_uint8(Interpolation mode, Device device) {
  if (mode == Interpolation::Nearest || mode == Interpolation::NearestExact) return true;
  if (device != Device::cpu()) return false;
  if (mode == Interpolation::Bilinear) {
    const std::string_view capability = torch_cpu_capability();
    return capability == "AVX2" || capability == "AVX512";
  }
  return true;
}

Tensor interpolate(TensorView batch, std::int64_t height, std::int64_t width,
                   const ResizeOptions& options) {
  const std::array<std::int64_t, 2> size{height, width};
  switch (options.interpolation) {
    case Interpolation::Nearest:
      return aten::upsample_nearest2d(batch, size);
    case Interpolation::NearestExact:
      return aten::_upsample_nearest_exact2d(batch, size);
    case Interpolation::Bilinear:
      return options.antialias ? aten::_upsample_bilinear2d_aa(batch, size, false)
                               : aten::upsample_bilinear2d(batch, size, false);
    case Interpolation::Bicubic:
      return options.antialias ? aten::_upsample_bicubic2d_aa(batch, size, false)
                               : aten::upsample_bicubic2d(batch, size, false);
    case Interpolation::Lanczos:
      return aten::_upsample_lanczos2d_aa(batch, size, false);
  }
  return {};
}

void check(TensorView image, std::int64_t height, std::int64_t width,
           const ResizeOptions& options) {
  if (!image.is_defined())
    detail::fail(ErrorCode::BadArgument, "resize", "the image", "the tensor is undefined");
  if (image.dim() < 3) {
    detail::fail(ErrorCode::BadArgument, "resize", "the image",
                 "expected [..., C, H, W], got " + std::to_string(image.dim()) + " dimensions");
  }
  const DType dtype = image.dtype();
  if (dtype != DType::U8 && dtype != DType::F32 && dtype != DType::F64 && dtype != DType::F16 &&
      dtype != DType::BF16) {
    detail::fail(ErrorCode::BadArgument, "resize", "the image",
                 "expected uint8 or floating pixels, got " + std::string(name(dtype)));
  }
  if (height <= 0 || width <= 0) {
    detail::fail(ErrorCode::BadArgument, "resize", "the size",
                 std::to_string(height) + "x" + std::to_string(width) + " is not a positive size");
  }
  if (options.interpolation == Interpolation::Lanczos && !options.antialias) {
    detail::fail(ErrorCode::BadArgument, "resize", "the options",
                 "Lanczos needs antialias = true (as in torchvision)");
  }
}

}  // namespace

Tensor resize(TensorView image, std::int64_t height, std::int64_t width,
              const ResizeOptions& options) {
  check(image, height, width, options);
  ResizeOptions effective = options;
  // torchvision antialiases only bilinear, bicubic and lanczos.
  if (options.interpolation == Interpolation::Nearest ||
      options.interpolation == Interpolation::NearestExact) {
    effective.antialias = false;
  }
  const std::int64_t dims = image.dim();
  const std::int64_t channels = image.size(-3);
  const std::int64_t old_height = image.size(-2);
  const std::int64_t old_width = image.size(-1);
  if (height == old_height && width == old_width) return image.to_owned();
  std::vector<std::int64_t> shape(image.sizes().begin(), image.sizes().end());
  const Tensor batch = image.reshape({-1, channels, old_height, old_width});
  const DType dtype = image.dtype();
  const bool cast = !(dtype == DType::F32 || dtype == DType::F64) &&
                    !(dtype == DType::U8 && native_uint8(options.interpolation, image.device()));
  Tensor out;
  if (cast) {
    out = interpolate(batch.to(DType::F32), height, width, effective);
    if (dtype == DType::U8) {
      if (options.interpolation == Interpolation::Bicubic ||
          options.interpolation == Interpolation::Lanczos) {
        out.clamp_(0, 255);
      }
      out = out.round();
    }
    out = out.to(dtype);
  } else {
    out = interpolate(batch, height, width, effective);
  }
  shape[dims - 2] = height;
  shape[dims - 1] = width;
  return out.reshape(shape);
}

}  // namespace fp::image
