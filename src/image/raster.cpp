// From a codec's pixels to the tensor torchvision returns: [C, H, W],
// contiguous or over interleaved memory, orientation and dtype applied.
#include <algorithm>
#include <cstring>

#include "finish.h"
#include "flash_powder/aten/aten.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/image/convert.h"
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

/// One frame's interleaved samples `in` as planes at `out`.
template <class T>
void deinterleave_frame(const T* in, T* out, int channels, std::size_t plane) {
  switch (channels) {
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

template <class T>
void deinterleave(const Raster& raster, T* out) {
  const auto plane = static_cast<std::size_t>(raster.height * raster.width);
  const auto* in = reinterpret_cast<const T*>(raster.pixels.data());
  if (raster.planar) {
    std::memcpy(out, in, raster.pixel_count() * raster.channels * sizeof(T));
    return;
  }
  const std::size_t frame = plane * raster.channels;
  for (std::int64_t f = 0; f < raster.frames; ++f) {
    deinterleave_frame(in + f * frame, out + f * frame, raster.channels, plane);
  }
}

/// Pillow's ImageOps.exif_transpose on a [C, H, W] tensor (each frame of
/// an [N, C, H, W] one).
Tensor oriented(Tensor image, int orientation) {
  switch (orientation) {
    case 2:
      return aten::flip(image, {-1});
    case 3:
      return aten::flip(image, {-2, -1});
    case 4:
      return aten::flip(image, {-2});
    case 5:
      return image.transpose(-2, -1).contiguous();
    case 6:
      return aten::flip(image.transpose(-2, -1), {-1});
    case 7:
      return aten::flip(image.transpose(-2, -1), {-2, -1});
    case 8:
      return aten::flip(image.transpose(-2, -1), {-2});
    default:
      return image;
  }
}

/// [C, H, W] over the memory of an (H, W, C) tensor, sharing it ([N, C, H, W]
/// over (N, H, W, C)).
Tensor channels_first(const Tensor& hwc) {
  return hwc.dim() == 4 ? hwc.permute({0, 3, 1, 2}).to_owned() : hwc.permute({2, 0, 1}).to_owned();
}

/// (H, W, C) of a [C, H, W] tensor, (N, H, W, C) of an [N, C, H, W] one: a view.
Tensor channels_last(const Tensor& image) {
  return image.dim() == 4 ? image.permute({0, 2, 3, 1}).to_owned()
                          : image.permute({1, 2, 0}).to_owned();
}

bool is_interleaved(const Tensor& image) {
  return channels_last(image).is_contiguous();
}

/// The shape of a raster's tensor: planes, or interleaved rows.
std::vector<std::int64_t> shape_of(const Raster& raster, bool planes) {
  std::vector<std::int64_t> shape =
      planes ? std::vector<std::int64_t>{raster.channels, raster.height, raster.width}
             : std::vector<std::int64_t>{raster.height, raster.width, raster.channels};
  if (raster.frames > 1) shape.insert(shape.begin(), raster.frames);
  return shape;
}

/// The samples of a raster the decoder kept, in a new tensor laid out as asked.
Tensor raster_tensor(const Raster& raster, DType dtype, bool interleaved) {
  const bool planes = !interleaved || raster.planar;
  Tensor image = fp::empty(shape_of(raster, planes), dtype);
  if (!planes) {
    void* out = raster.bits == 16 ? static_cast<void*>(image.data_mut<std::uint16_t>().data())
                                  : static_cast<void*>(image.data_mut<std::uint8_t>().data());
    std::memcpy(out, raster.pixels.data(),
                raster.row_bytes() * static_cast<std::size_t>(raster.height * raster.frames));
    return channels_first(image);
  }
  if (raster.bits == 16) {
    deinterleave(raster, image.data_mut<std::uint16_t>().data());
  } else {
    deinterleave(raster, image.data_mut<std::uint8_t>().data());
  }
  if (!interleaved) return image;
  return channels_first(channels_last(image).contiguous());
}

}  // namespace

std::uint8_t* TensorSink::allocate(int channels, std::int64_t height, std::int64_t width) {
  tensor_ = interleaved_ ? fp::empty({height, width, channels}, DType::U8)
                         : fp::empty({channels, height, width}, DType::U8);
  return tensor_.data_mut<std::uint8_t>().data();
}

Tensor TensorSink::take() {
  Tensor written = std::move(tensor_);
  return interleaved_ ? channels_first(written) : written;
}

Tensor finish(Raster&& raster, const DecodeOptions& options, TensorSink& sink) {
  const DType dtype = raster.bits == 16 ? DType::U16 : DType::U8;
  Tensor image = raster.in_sink ? sink.take() : raster_tensor(raster, dtype, options.interleaved);
  raster.pixels = {};
  if (options.apply_exif_orientation && raster.exif_orientation != 1) {
    // flip keeps a transposed input's strides: lay the result out again
    // where the orientation changed the layout asked for.
    image = oriented(std::move(image), raster.exif_orientation);
    if (options.interleaved && !is_interleaved(image)) {
      image = channels_first(channels_last(image).contiguous());
    } else if (!options.interleaved && !image.is_contiguous()) {
      image = image.contiguous();
    }
  }
  if (options.dtype && *options.dtype != dtype) {
    image = floatify(image, {.dtype = *options.dtype});
  }
  return image;
}

}  // namespace fp::image::detail
