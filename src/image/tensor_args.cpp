// The checks of tensor arguments: encoded bytes and [C, H, W] images.
#include <algorithm>
#include <cstring>

#include "flash_powder/base/device.h"
#include "flash_powder/base/dtype.h"
#include "flash_powder/core/factory.h"
#include "messages.h"
#include "shuffle.h"
#include "tensor_args.h"

namespace fp::image::detail {

namespace {

/// [C, H, W] planes to (H, W, C) samples with the channel count fixed at
/// compile time: faster than a generic permuted copy, and codecs want it.
template <class T, int C>
void interleave_fixed(const T* in, T* out, std::size_t plane) {
  const T* planes[C];
  for (int k = 0; k < C; ++k)
    planes[k] = in + k * plane;
  for (std::size_t i = 0; i < plane; ++i) {
    for (int k = 0; k < C; ++k)
      out[i * C + k] = planes[k][i];
  }
}

template <class T>
void interleave(const T* in, T* out, std::size_t plane, std::int64_t channels) {
  switch (channels) {
    case 1:
      std::memcpy(out, in, plane * sizeof(T));
      return;
    case 2:
      return interleave_fixed<T, 2>(in, out, plane);
    case 3:
      if constexpr (sizeof(T) == 1) {
        return interleave3(in, in + plane, in + 2 * plane, out, plane);
      } else {
        return interleave_fixed<T, 3>(in, out, plane);
      }
    default:
      return interleave_fixed<T, 4>(in, out, plane);
  }
}

Tensor to_interleaved(TensorView image) {
  // Channels-last memory (torchvision's decode results, Tensor.permute of an
  // (H, W, C) array) already is what a codec reads: share it, copy nothing.
  // (contiguous() would copy here: it always returns an independent tensor.)
  const TensorView hwc = image.permute({1, 2, 0});
  if (hwc.is_contiguous()) return hwc.to_owned();
  if (!image.is_contiguous()) return hwc.contiguous();
  const std::int64_t c = image.size(0), h = image.size(1), w = image.size(2);
  Tensor out = fp::empty({h, w, c}, image.dtype());
  const auto plane = static_cast<std::size_t>(h * w);
  if (image.dtype() == DType::U16) {
    interleave(image.data<std::uint16_t>().data(), out.data_mut<std::uint16_t>().data(), plane, c);
  } else {
    interleave(image.data<std::uint8_t>().data(), out.data_mut<std::uint8_t>().data(), plane, c);
  }
  return out;
}

}  // namespace

std::span<const std::uint8_t> byte_span(TensorView data, std::string_view function) {
  if (!data.is_defined())
    fail(ErrorCode::BadArgument, function, "the data", "the tensor is undefined");
  if (data.dtype() != DType::U8 || data.dim() != 1 || data.device() != Device::cpu()) {
    fail(ErrorCode::BadArgument, function, "the data",
         "expected a 1-D uint8 CPU tensor of encoded bytes (read_file's result), got a " +
             std::to_string(data.dim()) + "-D " + std::string(name(data.dtype())) + " tensor on " +
             data.device().str());
  }
  if (!data.is_contiguous())
    fail(ErrorCode::BadArgument, function, "the data", "the byte tensor is not contiguous");
  return data.data<std::uint8_t>();
}

Tensor interleaved(TensorView image, std::string_view function, std::span<const int> channels,
                   bool allow_uint16) {
  if (!image.is_defined())
    fail(ErrorCode::BadArgument, function, "the image", "the tensor is undefined");
  const bool dtype_ok = image.dtype() == DType::U8 || (allow_uint16 && image.dtype() == DType::U16);
  if (image.dim() != 3 || !dtype_ok || image.device() != Device::cpu()) {
    fail(ErrorCode::BadArgument, function, "the image",
         std::string("expected a [C, H, W] ") + (allow_uint16 ? "uint8 or uint16" : "uint8") +
             " CPU tensor, got a " + std::to_string(image.dim()) + "-D " +
             std::string(name(image.dtype())) + " tensor on " + image.device().str());
  }
  const auto c = static_cast<int>(image.size(0));
  if (std::find(channels.begin(), channels.end(), c) == channels.end()) {
    std::string allowed;
    for (int n : channels)
      allowed += (allowed.empty() ? "" : ", ") + std::to_string(n);
    fail(ErrorCode::BadArgument, function, "the image",
         std::to_string(c) + " channels; this encoder takes " + allowed + " channels");
  }
  if (image.size(1) == 0 || image.size(2) == 0) {
    fail(ErrorCode::BadArgument, function, "the image",
         "an image of zero height or width cannot be encoded");
  }
  return to_interleaved(image);
}

}  // namespace fp::image::detail
