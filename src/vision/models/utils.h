// What torchvision/models/_utils.py gives several model families.
#pragma once

#include <algorithm>
#include <cstdint>

namespace fp::vision::models::detail {

/// torchvision.models._utils._make_divisible: `value` rounded to the nearest
/// multiple of `divisor` (at least `divisor`), never more than 10% below it.
inline std::int64_t make_divisible(double value, std::int64_t divisor = 8) {
  std::int64_t rounded =
      std::max(divisor, static_cast<std::int64_t>(value + divisor / 2.0) / divisor * divisor);
  if (static_cast<double>(rounded) < 0.9 * value) rounded += divisor;
  return rounded;
}

}  // namespace fp::vision::models::detail
