// libpng's error and warning callbacks, for the PNG decoder and encoder alike:
// libpng's error pointer names a char[kLibpngMessageSize] that receives the
// error's text before libpng jumps back to the caller's setjmp.
#pragma once

#include <png.h>

#include <cstddef>
#include <cstdio>

namespace fp::image::detail {

inline constexpr std::size_t kLibpngMessageSize = 256;

extern "C" inline void on_libpng_error(png_structp png, png_const_charp message) {
  std::snprintf(static_cast<char*>(png_get_error_ptr(png)), kLibpngMessageSize, "%s", message);
  png_longjmp(png, 1);
}

/// Warnings (a bad CRC in an ancillary chunk, ...) do not stop a read.
extern "C" inline void on_libpng_warning(png_structp, png_const_charp) {}

}  // namespace fp::image::detail
