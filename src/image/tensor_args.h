// Checks of tensor arguments (internal).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "flash_powder/core/tensor.h"

namespace fp::image::detail {

/// The bytes of a 1-D uint8 CPU tensor; throws naming `function` otherwise.
std::span<const std::uint8_t> byte_span(TensorView data, std::string_view function);

/// Checks that `image` is a [C, H, W] CPU tensor of `dtype` with C among
/// `channels`, and returns it as a contiguous (H, W, C) tensor for a codec:
/// the image's own memory (a lazy clone, no copy) when it is laid out that way
/// already, as a channels-last [C, H, W] tensor is, else an interleaved copy.
Tensor interleaved(TensorView image, std::string_view function, std::span<const int> channels,
                   bool allow_uint16 = false);

}  // namespace fp::image::detail
