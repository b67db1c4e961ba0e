// The bilinear sample of torchvision's RoIAlign kernels
// (torchvision/csrc/ops/cpu/roi_align_common.h and ps_roi_align_kernel.cpp):
// the four neighbours of (y, x) and their weights, in torchvision's
// arithmetic. Samples more than one pixel outside the map have none.
#pragma once

#include <cstdint>
#include <optional>

namespace fp::vision::ops::detail {

/// Four pixel offsets in a [height, width] plane and their weights. The
/// offsets are ints, as torchvision's: a smaller record keeps the kernels'
/// inner loop as fast as torchvision's (RoiArguments refuses planes of
/// 2^31 pixels or more).
template <class T>
struct Bilinear {
  int pos1 = 0, pos2 = 0, pos3 = 0, pos4 = 0;
  T w1 = 0, w2 = 0, w3 = 0, w4 = 0;
};

/// The sample at (y, x), or none outside [-1, height] x [-1, width] (NaN
/// coordinates included).
template <class T>
std::optional<Bilinear<T>> bilinear(std::int64_t height, std::int64_t width, T y, T x) {
  if (!(y >= -1.0 && y <= static_cast<double>(height) && x >= -1.0 &&
        x <= static_cast<double>(width))) {
    return std::nullopt;
  }
  if (y <= 0) y = 0;
  if (x <= 0) x = 0;
  auto y_low = static_cast<std::int64_t>(y);
  auto x_low = static_cast<std::int64_t>(x);
  std::int64_t y_high = 0;
  std::int64_t x_high = 0;
  if (y_low >= height - 1) {
    y_high = y_low = height - 1;
    y = static_cast<T>(y_low);
  } else {
    y_high = y_low + 1;
  }
  if (x_low >= width - 1) {
    x_high = x_low = width - 1;
    x = static_cast<T>(x_low);
  } else {
    x_high = x_low + 1;
  }
  // torchvision: T ly = y - y_low (the int converted to T), T hy = 1. - ly
  // (in double, then rounded to T).
  const T ly = y - static_cast<T>(y_low);
  const T lx = x - static_cast<T>(x_low);
  const T hy = static_cast<T>(1. - ly);
  const T hx = static_cast<T>(1. - lx);
  return Bilinear<T>{static_cast<int>(y_low * width + x_low),
                     static_cast<int>(y_low * width + x_high),
                     static_cast<int>(y_high * width + x_low),
                     static_cast<int>(y_high * width + x_high),
                     hy * hx,
                     hy * lx,
                     ly * hx,
                     ly * lx};
}

}  // namespace fp::vision::ops::detail
