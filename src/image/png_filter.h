// libpng's choice of a row's filter, computed with AVX2 (internal to the
// image layer).
#pragma once

#include <cstddef>
#include <cstdint>

namespace fp::image::detail {

/// Whether choose_png_filter runs on this CPU (AVX2). Where it does not,
/// libpng searches for each row's filter itself: the same bytes, slower.
bool png_filter_choice_available();

/// The filter libpng's adaptive search (pngwutil.c png_write_find_filter)
/// picks for one 8-bit row: among `candidates` (PNG_FILTER_* bits), the one
/// whose residuals have the smallest sum of magnitudes as signed bytes, ties
/// going to the first of None, Sub, Up, Average, Paeth. `previous` is the
/// raw row above (all zeros for the first row), `bpp` the bytes of a pixel.
/// Returns one PNG_FILTER_* bit; png_set_filter with it before the row
/// leaves libpng one filter to apply instead of five to try.
int choose_png_filter(const std::uint8_t* row, const std::uint8_t* previous, std::size_t row_bytes,
                      std::size_t bpp, int candidates);

}  // namespace fp::image::detail
