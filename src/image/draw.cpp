// draw_segmentation_masks and draw_bounding_boxes: torchvision.utils' overlays.
// Masks are the same tensor ops in the same order; boxes are Pillow's
// ImageDraw.rectangle (Draw.c) drawn on the pixels directly, and polygons
// its ImageDraw.polygon outlines; box labels are ImageDraw.text in Pillow's
// bitmap font (image/bitmap_font.h).
#include <algorithm>
#include <array>
#include <cmath>

#include "flash_powder/base/dtype.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/functions.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/image/convert.h"
#include "flash_powder/image/draw.h"
#include "image/bitmap_font.h"
#include "messages.h"

namespace fp::image {

namespace {

/// torchvision's _generate_color_palette: (i * (2^25-1, 2^15-1, 2^21-1)) % 255.
Color palette_color(std::int64_t i) {
  const std::array<std::int64_t, 3> base{(1 << 25) - 1, (1 << 15) - 1, (1 << 21) - 1};
  return {static_cast<std::uint8_t>(i * base[0] % 255),
          static_cast<std::uint8_t>(i * base[1] % 255),
          static_cast<std::uint8_t>(i * base[2] % 255)};
}

std::vector<Color> colors_for(const std::vector<Color>& given, std::int64_t count,
                              const char* function) {
  std::vector<Color> colors;
  for (std::int64_t i = 0; i < count; ++i) {
    if (given.empty()) {
      colors.push_back(palette_color(i));
    } else if (given.size() == 1) {
      colors.push_back(given[0]);
    } else if (static_cast<std::int64_t>(given.size()) < count) {
      detail::fail(ErrorCode::BadArgument, function, "the options",
                   "Number of colors must be equal or larger than the number of objects, but got " +
                       std::to_string(given.size()) + " < " + std::to_string(count));
    } else {
      colors.push_back(given[static_cast<std::size_t>(i)]);
    }
  }
  return colors;
}

/// A colour as a [3, 1, 1] tensor of the image's dtype ([0, 1] for floats).
Tensor color_tensor(Color c, DType dtype) {
  if (dtype == DType::U8) return fp::tensor({c.r, c.g, c.b}).reshape({3, 1, 1});
  return fp::tensor({c.r / 255.0, c.g / 255.0, c.b / 255.0}).to(dtype).reshape({3, 1, 1});
}

void check_image(TensorView image, const char* function, bool gray_too) {
  if (!image.is_defined())
    detail::fail(ErrorCode::BadArgument, function, "the image", "the tensor is undefined");
  if (image.dtype() != DType::U8 && !is_floating_point(image.dtype())) {
    detail::fail(ErrorCode::BadArgument, function, "the image",
                 "The image dtype must be uint8 or float, got " + std::string(name(image.dtype())));
  }
  if (image.dim() != 3)
    detail::fail(ErrorCode::BadArgument, function, "the image",
                 "Pass individual images, not batches");
  const auto c = image.size(0);
  if (!(c == 3 || (gray_too && c == 1))) {
    detail::fail(ErrorCode::BadArgument, function, "the image",
                 gray_too ? "Only grayscale and RGB images are supported"
                          : "Pass an RGB image. Other Image formats are not supported");
  }
}

}  // namespace

Tensor draw_segmentation_masks(TensorView image, TensorView masks, const MaskOptions& options) {
  const char* function = "draw_segmentation_masks";
  check_image(image, function, false);
  if (!masks.is_defined())
    detail::fail(ErrorCode::BadArgument, function, "the masks", "the tensor is undefined");
  Tensor all = masks.dim() == 2 ? masks.unsqueeze(0).to_owned() : masks.to_owned();
  if (all.dim() != 3) {
    detail::fail(ErrorCode::BadArgument, function, "the masks",
                 "masks must be of shape (H, W) or (batch_size, H, W)");
  }
  if (all.dtype() != DType::Bool) {
    detail::fail(ErrorCode::BadArgument, function, "the masks",
                 "The masks must be of dtype bool. Got " + std::string(name(all.dtype())));
  }
  if (all.size(1) != image.size(1) || all.size(2) != image.size(2)) {
    detail::fail(ErrorCode::BadArgument, function, "the masks",
                 "The image and the masks must have the same height and width");
  }
  if (all.size(0) == 0) return image.to_owned();
  const std::vector<Color> colors = colors_for(options.colors, all.size(0), function);
  const Tensor overlapping = all.sum(std::vector<std::int64_t>{0}).gt(1);
  Tensor drawn = image.to_owned();
  for (std::int64_t k = 0; k < all.size(0); ++k) {
    drawn = fp::where(all.i(k).unsqueeze(0), color_tensor(colors[k], image.dtype()), drawn);
  }
  drawn = drawn.masked_fill(overlapping.unsqueeze(0), 0);
  // Python: image * (1 - alpha) + img_to_draw * alpha, then .to(dtype).
  Tensor out = image.mul(1.0 - options.alpha) + drawn.mul(options.alpha);
  return out.to(image.dtype());
}

namespace {

/// Pixels of an (H, W, 3) uint8 image, for Pillow's drawing primitives.
struct Canvas {
  std::uint8_t* pixels;
  std::int64_t height, width;

  /// Pillow's point with an "RGBA" draw: blend by `alpha` (DIV255 rounding).
  void point(std::int64_t x, std::int64_t y, Color c, int alpha) {
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    std::uint8_t* p = pixels + (y * width + x) * 3;
    const std::uint8_t ink[3] = {c.r, c.g, c.b};
    for (int k = 0; k < 3; ++k) {
      const int tmp = p[k] * (255 - alpha) + ink[k] * alpha + 128;
      p[k] = static_cast<std::uint8_t>(((tmp >> 8) + tmp) >> 8);
    }
  }
  void hline(std::int64_t x0, std::int64_t y, std::int64_t x1, Color c, int alpha) {
    for (std::int64_t x = std::min(x0, x1); x <= std::max(x0, x1); ++x)
      point(x, y, c, alpha);
  }
  void vline(std::int64_t x, std::int64_t y0, std::int64_t y1, Color c, int alpha) {
    for (std::int64_t y = std::min(y0, y1); y <= std::max(y0, y1); ++y)
      point(x, y, c, alpha);
  }
  /// Pillow's line: Bresenham from (x0, y0) to (x1, y1), both ends drawn.
  void line(std::int64_t x0, std::int64_t y0, std::int64_t x1, std::int64_t y1, Color c) {
    const std::int64_t dx = x1 > x0 ? x1 - x0 : x0 - x1;
    const std::int64_t dy = y1 > y0 ? y1 - y0 : y0 - y1;
    const std::int64_t xs = x1 >= x0 ? 1 : -1;
    const std::int64_t ys = y1 >= y0 ? 1 : -1;
    const bool flat = dx > dy;  // x steps every pixel, y when the error says
    const std::int64_t major = flat ? dx : dy;
    const std::int64_t minor = flat ? dy : dx;
    std::int64_t error = 2 * minor - major;
    for (std::int64_t i = 0; i <= major; ++i) {
      point(x0, y0, c, 255);
      if (error >= 0) {
        (flat ? y0 : x0) += flat ? ys : xs;
        error -= 2 * major;
      }
      error += 2 * minor;
      (flat ? x0 : y0) += flat ? xs : ys;
    }
  }
  /// ImageDraw.text's draw_bitmap of a text mask at (x, y), in full colour.
  void text(std::int64_t x, std::int64_t y, const detail::TextMask& mask, Color c) {
    for (std::int64_t row = 0; row < mask.height; ++row)
      for (std::int64_t column = 0; column < mask.width; ++column)
        if (mask.pixels[static_cast<std::size_t>(row * mask.width + column)])
          point(x + column, y + row, c, 255);
  }
  /// Pillow's ImagingDrawRectangle.
  void rectangle(std::int64_t x0, std::int64_t y0, std::int64_t x1, std::int64_t y1, Color c,
                 int alpha, bool fill, int w) {
    if (fill) {
      for (std::int64_t y = y0; y <= y1; ++y)
        hline(x0, y, x1, c, alpha);
      return;
    }
    for (int i = 0; i < w; ++i) {
      hline(x0, y0 + i, x1, c, alpha);
      hline(x0, y1 - i, x1, c, alpha);
      vline(x1 - i, y0 + w, y1 - w, c, alpha);
      vline(x0 + i, y0 + w, y1 - w, c, alpha);
    }
  }
};

/// `draw` run on a copy of `image` as Pillow draws: uint8 RGB pixels in
/// (H, W, 3) (a gray image made RGB, a float one scaled by 255), returned
/// in the image's own dtype.
template <class Draw>
Tensor drawn_with_pillow(TensorView image, Draw draw) {
  const bool floating = image.dtype() != DType::U8;
  Tensor pixels = floating ? image.mul(255).to(DType::U8) : image.to_owned();
  if (pixels.size(0) == 1) pixels = fp::cat({pixels, pixels, pixels}, 0);
  Tensor hwc = pixels.permute({1, 2, 0}).contiguous();
  Canvas canvas{hwc.data_mut<std::uint8_t>().data(), hwc.size(0), hwc.size(1)};
  draw(canvas);
  Tensor out = hwc.permute({2, 0, 1}).contiguous();
  if (floating) return floatify(out, {.dtype = image.dtype()});
  return out;
}

void check_boxes(TensorView boxes, TensorView image, const BoxOptions& options) {
  const char* function = "draw_bounding_boxes";
  if (!boxes.is_defined())
    detail::fail(ErrorCode::BadArgument, function, "the boxes", "the tensor is undefined");
  if (boxes.dim() != 2 || boxes.size(1) != 4) {
    detail::fail(ErrorCode::BadArgument, function, "the boxes",
                 "expected an [N, 4] tensor of (x1, y1, x2, y2)");
  }
  if (boxes.dtype() == DType::Bool || is_complex(boxes.dtype())) {
    detail::fail(ErrorCode::BadArgument, function, "the boxes", "expected real coordinates");
  }
  if (options.width < 0)
    detail::fail(ErrorCode::BadArgument, function, "the options", "width must not be negative");
  if (!options.labels.empty() && static_cast<std::int64_t>(options.labels.size()) != boxes.size(0))
    detail::fail(ErrorCode::BadArgument, function, "the labels",
                 "Number of boxes (" + std::to_string(boxes.size(0)) + ") and labels (" +
                     std::to_string(options.labels.size()) +
                     ") mismatch. Please specify labels for each box.");
  for (std::size_t k = 0; k < options.labels.size(); ++k)
    if (!detail::font_has(options.labels[k]))
      detail::fail(ErrorCode::BadArgument, function, "the labels",
                   "label " + std::to_string(k) +
                       " has a character that is not printable ASCII (32 to 126), which the "
                       "built-in font cannot draw");
  (void)image;
}

}  // namespace

Tensor draw_bounding_boxes(TensorView image, TensorView boxes, const BoxOptions& options) {
  const char* function = "draw_bounding_boxes";
  check_image(image, function, true);
  check_boxes(boxes, image, options);
  const Tensor corners = boxes.to(DType::I64).cpu();
  const std::vector<std::int64_t> xy = corners.to_vector<std::int64_t>();
  for (std::size_t k = 0; k + 3 < xy.size(); k += 4) {
    if (xy[k] > xy[k + 2] || xy[k + 1] > xy[k + 3]) {
      detail::fail(ErrorCode::BadArgument, function, "the boxes",
                   "Boxes need to be in (xmin, ymin, xmax, ymax) format. Use "
                   "torchvision.ops.box_convert to convert them");
    }
  }
  return drawn_with_pillow(image, [&](Canvas& canvas) {
    const std::vector<Color> colors = colors_for(options.colors, boxes.size(0), function);
    for (std::size_t k = 0; k < colors.size(); ++k) {
      const std::int64_t* b = xy.data() + 4 * k;
      if (options.fill) canvas.rectangle(b[0], b[1], b[2], b[3], colors[k], 100, true, 1);
      if (options.width != 0) {
        canvas.rectangle(b[0], b[1], b[2], b[3], colors[k], 255, false, options.width);
      }
      if (!options.labels.empty()) {
        const std::int64_t margin = options.width + 1;  // torchvision's width + box_margin
        canvas.text(b[0] + margin, b[1] + margin, detail::text_mask(options.labels[k]), colors[k]);
      }
    }
  });
}

Tensor draw_polygons(TensorView image, TensorView polygons, const PolygonOptions& options) {
  const char* function = "draw_polygons";
  check_image(image, function, true);
  if (!polygons.is_defined() || polygons.dim() != 3 || polygons.size(2) != 2 ||
      polygons.size(1) == 0 || polygons.dtype() == DType::Bool || is_complex(polygons.dtype()))
    detail::fail(ErrorCode::BadArgument, function, "the polygons",
                 "expected a real [K, P, 2] tensor of P >= 1 vertices (x, y) each");
  const Tensor as_double = polygons.to(TensorOptions(DType::F64, Device::cpu())).contiguous();
  const std::vector<double> xy = as_double.to_vector<double>();
  for (const double value : xy)
    if (!std::isfinite(value))
      detail::fail(ErrorCode::BadArgument, function, "the polygons", "a vertex is not finite");
  return drawn_with_pillow(image, [&](Canvas& canvas) {
    const std::vector<Color> colors = colors_for(options.colors, polygons.size(0), function);
    const std::int64_t count = polygons.size(1);
    // Pillow truncates the vertices to ints (towards zero) before drawing.
    const auto vertex = [&](std::size_t k, std::int64_t i, int axis) {
      return static_cast<std::int64_t>(xy[(k * count + i) * 2 + axis]);
    };
    for (std::size_t k = 0; k < colors.size(); ++k) {
      for (std::int64_t i = 0; i < count; ++i) {
        const std::int64_t next = (i + 1) % count;
        canvas.line(vertex(k, i, 0), vertex(k, i, 1), vertex(k, next, 0), vertex(k, next, 1),
                    colors[k]);
      }
    }
  });
}

}  // namespace fp::image
