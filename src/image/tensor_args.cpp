// The checks of tensor arguments: encoded bytes and [C, H, W] images.
#include <algorithm>

#include "flash_powder/base/device.h"
#include "flash_powder/base/dtype.h"
#include "messages.h"
#include "tensor_args.h"

namespace fp::image::detail {

std::span<const std::uint8_t> byte_span(TensorView data, std::string_view function) {
  if (!data.is_defined()) fail(function, "the data", "the tensor is undefined");
  if (data.dtype() != DType::U8 || data.dim() != 1 || data.device() != Device::cpu()) {
    fail(function, "the data",
         "expected a 1-D uint8 CPU tensor of encoded bytes (read_file's result), got a " +
             std::to_string(data.dim()) + "-D " + std::string(name(data.dtype())) + " tensor on " +
             data.device().str());
  }
  if (!data.is_contiguous()) fail(function, "the data", "the byte tensor is not contiguous");
  return data.data<std::uint8_t>();
}

Tensor interleaved(TensorView image, std::string_view function, std::span<const int> channels,
                   bool allow_uint16) {
  if (!image.is_defined()) fail(function, "the image", "the tensor is undefined");
  const bool dtype_ok = image.dtype() == DType::U8 || (allow_uint16 && image.dtype() == DType::U16);
  if (image.dim() != 3 || !dtype_ok || image.device() != Device::cpu()) {
    fail(function, "the image",
         std::string("expected a [C, H, W] ") + (allow_uint16 ? "uint8 or uint16" : "uint8") +
             " CPU tensor, got a " + std::to_string(image.dim()) + "-D " +
             std::string(name(image.dtype())) + " tensor on " + image.device().str());
  }
  const auto c = static_cast<int>(image.size(0));
  if (std::find(channels.begin(), channels.end(), c) == channels.end()) {
    std::string allowed;
    for (int n : channels)
      allowed += (allowed.empty() ? "" : ", ") + std::to_string(n);
    fail(function, "the image",
         std::to_string(c) + " channels; this encoder takes " + allowed + " channels");
  }
  if (image.size(1) == 0 || image.size(2) == 0) {
    fail(function, "the image", "an image of zero height or width cannot be encoded");
  }
  return image.permute({1, 2, 0}).contiguous();
}

}  // namespace fp::image::detail
