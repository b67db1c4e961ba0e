// Binary morphology of masks, as scikit-image's morphology.binary_dilation,
// binary_erosion, binary_opening and binary_closing (mode "ignore": nothing
// outside the image grows into it or eats it), with its footprints disk,
// diamond and footprint_rectangle.
//
//     fp::Tensor smooth = fp::vision::masks::binary_opening(mask, fp::vision::masks::disk(2));
//
// A mask is bool [H, W], or [N, H, W] for N masks each taken on its own (not
// scikit-image's 3-D neighbourhood). A footprint is [h, w] (bool or an
// integer dtype, non-zero where it reaches); one of an even side is padded
// by a zero row or column at its end, as scikit-image pads it, and centred
// at h / 2, w / 2 then. Each runs as a convolution counting the footprint's
// pixels (ATen's, on the mask's device), exact for any footprint.
#pragma once

#include <cstdint>
#include <optional>

#include "flash_powder/core/tensor.h"

namespace fp::vision::masks {

/// `skimage.morphology.disk(radius)`: bool [2r + 1, 2r + 1], true where
/// x^2 + y^2 <= r^2. fp::Error for a negative radius.
Tensor disk(std::int64_t radius);

/// `skimage.morphology.diamond(radius)`: bool [2r + 1, 2r + 1], true where
/// |x| + |y| <= r. fp::Error for a negative radius.
Tensor diamond(std::int64_t radius);

/// `skimage.morphology.footprint_rectangle((height, width))`: all true.
/// fp::Error unless both are positive.
Tensor rectangle(std::int64_t height, std::int64_t width);

/// `skimage.morphology.binary_dilation(mask, footprint)`: true where the
/// footprint, mirrored and centred there, meets a true pixel. Without a
/// footprint, the cross `diamond(1)` (scikit-image's default). fp::Error
/// for a mask or footprint of another dtype or rank.
Tensor binary_dilation(TensorView mask, const std::optional<TensorView>& footprint = std::nullopt);

/// `skimage.morphology.binary_erosion(mask, footprint)`: true where the
/// footprint centred there covers true pixels only (outside the image counts
/// as true). Defaults and errors as binary_dilation.
Tensor binary_erosion(TensorView mask, const std::optional<TensorView>& footprint = std::nullopt);

/// `skimage.morphology.binary_opening(mask, footprint)`: the erosion's
/// dilation; removes what the footprint does not fit in.
Tensor binary_opening(TensorView mask, const std::optional<TensorView>& footprint = std::nullopt);

/// `skimage.morphology.binary_closing(mask, footprint)`: the dilation's
/// erosion; fills what the footprint does not fit in.
Tensor binary_closing(TensorView mask, const std::optional<TensorView>& footprint = std::nullopt);

}  // namespace fp::vision::masks
