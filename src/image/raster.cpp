// From a codec's interleaved pixels to the tensor torchvision returns:
// contiguous [C, H, W], orientation and dtype applied.
#include <algorithm>
#include <cstring>

#include "finish.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/image/convert.h"
#include "flash_powder/ops/aten.h"
#include "messages.h"
#include "shuffle.h"

namespace fp::image::detail {

namespace {

/// Planar copy of interleaved samples: the one pass every decode pays. The
/// channel count is a template argument so that the inner loop has no
/// loop over channels and compiles to straight stores.
template <class T, int C>
void deinterleave_fixed(const T* in, T* out, std::size_t plane) {
  T* planes[C];
  for (int k = 0; k < C; ++k)
    planes[k] = out + k * plane;
  for (std::size_t i = 0; i < plane; ++i) {
    for (int k = 0; k < C; ++k)
      planes[k][i] = in[i * C + k];
  }
}

template <class T>
void deinterleave(const Raster& raster, T* out) {
  const auto plane = static_cast<std::size_t>(raster.height * raster.width);
  const auto* in = reinterpret_cast<const T*>(raster.pixels.data());
  if (raster.planar) {
    std::memcpy(out, in, plane * raster.channels * sizeof(T));
    return;
  }
  switch (raster.channels) {
    case 1:
      std::memcpy(out, in, plane * sizeof(T));
      return;
    case 2:
      return deinterleave_fixed<T, 2>(in, out, plane);
    case 3:
      if constexpr (sizeof(T) == 1) {
        return deinterleave3(in, out, out + plane, out + 2 * plane, plane);
      } else {
        return deinterleave_fixed<T, 3>(in, out, plane);
      }
    default:
      return deinterleave_fixed<T, 4>(in, out, plane);
  }
}

/// Pillow's ImageOps.exif_transpose on a [C, H, W] tensor.
Tensor oriented(Tensor image, int orientation) {
  switch (orientation) {
    case 2:
      return aten::flip(image, {2});
    case 3:
      return aten::flip(image, {1, 2});
    case 4:
      return aten::flip(image, {1});
    case 5:
      return image.transpose(1, 2).contiguous();
    case 6:
      return aten::flip(image.transpose(1, 2), {2});
    case 7:
      return aten::flip(image.transpose(1, 2), {1, 2});
    case 8:
      return aten::flip(image.transpose(1, 2), {1});
    default:
      return image;
  }
}

}  // namespace

std::uint8_t* TensorSink::allocate(int channels, std::int64_t height, std::int64_t width) {
  tensor = fp::empty({channels, height, width}, DType::U8);
  return tensor.data_mut<std::uint8_t>().data();
}

Tensor finish(Raster&& raster, const DecodeOptions& options, TensorSink& sink) {
  const DType dtype = raster.bits == 16 ? DType::U16 : DType::U8;
  Tensor image;
  if (raster.in_sink) {
    image = std::move(sink.tensor);
  } else {
    image = fp::empty({raster.channels, raster.height, raster.width}, dtype);
    if (raster.bits == 16) {
      deinterleave(raster, image.data_mut<std::uint16_t>().data());
    } else {
      deinterleave(raster, image.data_mut<std::uint8_t>().data());
    }
  }
  raster.pixels = {};
  if (options.apply_exif_orientation && raster.exif_orientation != 1) {
    // flip keeps a transposed input's strides; torchvision returns contiguous.
    // (contiguous() always copies: only where the result is not contiguous.)
    image = oriented(std::move(image), raster.exif_orientation);
    if (!image.is_contiguous()) image = image.contiguous();
  }
  if (options.dtype && *options.dtype != dtype) {
    image = floatify(image, {.dtype = *options.dtype});
  }
  return image;
}

}  // namespace fp::image::detail
