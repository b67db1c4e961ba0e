// Grids, saving and overlays: torchvision.utils' make_grid, save_image,
// draw_segmentation_masks and draw_bounding_boxes, pixel for pixel.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "flash_powder/core/tensor.h"

namespace fp::image {

/// Options of make_grid. Python: `torchvision.utils.make_grid`'s keywords.
struct GridOptions {
  std::int64_t nrow = 8;  ///< images per row
  /// Pixels between images and around the grid.
  std::int64_t padding = 2;
  bool normalize = false;  ///< shift to [0, 1] by value_range or the min and max
  /// The (min, max) that `normalize` maps to [0, 1]; by default the images' own.
  std::optional<std::pair<double, double>> value_range = std::nullopt;
  bool scale_each = false;  ///< normalize each image by its own min and max
  /// The value of the padding pixels.
  double pad_value = 0;
};

/// Tiles a [B, C, H, W] batch (or a [C, H, W] / [H, W] image) into one
/// [C, H', W'] image, one-channel images made three-channel.
/// Python: `torchvision.utils.make_grid(tensor, nrow, padding, normalize,
/// value_range, scale_each, pad_value)`.
Tensor make_grid(TensorView images, const GridOptions& options = {});

/// Saves an image tensor as PNG, JPEG or WebP, told by the extension, atomically:
/// [C, H, W] uint8 as it is; floats in [0, 1] rounded and clamped like
/// `torchvision.utils.save_image` (x * 255 + 0.5, clamped, truncated; the seed
/// truncated without the + 0.5); [B, C, H, W] as one row of B images;
/// [V, B, C, H, W] as V rows. Python: `torchvision.utils.save_image`.
void save_image(TensorView images, const std::filesystem::path& path,
                const GridOptions& options = {});

/// An RGB colour.
struct Color {
  std::uint8_t r = 0;  ///< red, 0-255
  std::uint8_t g = 0;  ///< green, 0-255
  std::uint8_t b = 0;  ///< blue, 0-255
};

/// Options of draw_segmentation_masks. Python: its keyword arguments.
struct MaskOptions {
  /// How opaque the masks are: 0 leaves the image, 1 paints the mask's colour.
  double alpha = 0.8;
  /// One colour per mask, or one for all; empty: torchvision's palette.
  std::vector<Color> colors = {};
};

/// Overlays boolean masks ([N, H, W] or [H, W]) on a [3, H, W] uint8 or
/// float image. Python: `torchvision.utils.draw_segmentation_masks`.
Tensor draw_segmentation_masks(TensorView image, TensorView masks, const MaskOptions& options = {});

/// Options of draw_bounding_boxes. Python: its keywords.
struct BoxOptions {
  /// One colour per box, or one for all; empty: torchvision's palette.
  std::vector<Color> colors = {};
  bool fill = false;  ///< fill each box with its colour at alpha 100/255
  int width = 1;      ///< outline width in pixels
  /// One text label per box, drawn in the box's colour inside its top-left
  /// corner, or none (empty). Printable ASCII only (characters 32 to 126; a
  /// label with any other character is refused, as is a newline: the font
  /// has no other glyphs and one line per label is drawn). An empty string
  /// draws no text for its box.
  std::vector<std::string> labels = {};
};

/// Draws [N, 4] boxes (x1, y1, x2, y2) on a [C, H, W] uint8 or float image (C =
/// 1 or 3), like Pillow's ImageDraw.rectangle, and their labels. Python:
/// `torchvision.utils.draw_bounding_boxes(image, boxes, labels=..., colors=..., fill=...,
/// width=...)` with `font` given as Pillow's built-in bitmap font: labels are drawn
/// as torchvision draws them, with `ImageDraw.text` at (x1 + width + 1, y1 + width
/// + 1) in the box's colour, in `PIL.ImageFont.load_default_imagefont()` (a
/// 6 x 11 pixel Courier Bold, embedded in flash_powder), pixel for pixel.
/// torchvision's own default font is Pillow's FreeType font (Aileron at size
/// 10 where Pillow has FreeType), which flash_powder does not embed; it has no
/// font size for the same reason (torchvision ignores font_size without a font).
Tensor draw_bounding_boxes(TensorView image, TensorView boxes, const BoxOptions& options = {});

/// Options of draw_polygons. Python: ImageDraw.polygon's `outline` per polygon.
struct PolygonOptions {
  /// One colour per polygon, or one for all; empty: torchvision's palette.
  std::vector<Color> colors = {};
};

/// Draws the outlines of [K, P, 2] polygons (P vertices (x, y) each, joined
/// in order and back to the first) on a [C, H, W] uint8 or float image (C =
/// 1 or 3), one pixel wide, like Pillow's `ImageDraw.polygon(xy,
/// outline=color)`: vertices truncated to whole pixels, each edge a
/// Bresenham line. For rotated boxes: stack their `corners()`.
Tensor draw_polygons(TensorView image, TensorView polygons, const PolygonOptions& options = {});

}  // namespace fp::image
