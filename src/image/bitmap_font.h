// Text in Pillow's built-in bitmap font (ImageFont.load_default_imagefont(),
// courB08): the pixels ImageDraw.text sets for a line of printable ASCII
// (internal to the image layer; the glyphs are generated from Pillow's font).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace fp::image::detail {

/// The pixels of a line of text as Pillow's ImagingFont composes it.
struct TextMask {
  std::int64_t width = 0;   ///< 6 pixels per character
  std::int64_t height = 0;  ///< the font's line height (11)
  /// width * height flags, row by row: true where the text is drawn.
  std::vector<bool> pixels;
};

/// Whether every character of `text` is in the font (printable ASCII, 32 to 126).
bool font_has(std::string_view text);

/// The mask of `text`, whose characters are all in the font (font_has).
TextMask text_mask(std::string_view text);

}  // namespace fp::image::detail
