// A tensor's sizes, strides and values as one comparable value, equal to
// the Python helper `summary(t)` of the test files that use it:
//
//     def summary(t):
//         return [[float(s) for s in t.shape], [float(s) for s in t.stride()], values(t)]
//
//     EXPECT_SAME(F::unfold(x, 2), truth<Summary>("summary(F.unfold(x, 2))"));
//
// Values are compared as doubles, which hold every float16, bfloat16,
// float32 and float64 value (and small integers) exactly: bit for bit.
#pragma once

#include <flash_powder/flash_powder.h>

#include <vector>

#include "nn/helpers.h"

namespace nn_test {

using Summary = std::vector<std::vector<double>>;

inline Summary summary(const fp::detail::TensorBase& tensor) {
  const auto sizes = tensor.sizes(), strides = tensor.strides();
  return {std::vector<double>(sizes.begin(), sizes.end()),
          std::vector<double>(strides.begin(), strides.end()), tensor.to_vector<double>()};
}

}  // namespace nn_test

/// EXPECT_SAME(tensor, expected): the tensor's sizes, strides and values equal
/// Python's `summary(t)` bit for bit.
#define EXPECT_SAME(actual, expected) EXPECT_PYTHON(::nn_test::summary(actual), expected)
