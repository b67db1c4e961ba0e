// Bit-for-bit comparisons of elementwise functions against Python in every
// floating dtype (float32, float64, bfloat16, float16), shared by the
// activation tests. Their Python side is activation_bits.py, beside this file:
//
//     /*
//     #|PYTHON
//     x = inputs(1)
//     */
//     const fp::Tensor x = input(truth<std::vector<double>>("values(x)"));
//     EXPECT_BITS(per_dtype(x, [](const fp::Tensor& t) { return F::selu(t); }),
//                 truth<Bits>("per_dtype(x, F.selu)"));
#pragma once

#include <gtest/gtest.h>

#include <flash_powder/aten/aten.h>
#include <flash_powder/flash_powder.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

namespace nn_test {

/// One list of bit patterns per dtype.
using Bits = std::vector<std::vector<std::int64_t>>;

/// Python's DTYPES.
inline const std::vector<fp::DType>& floating_dtypes() {
  static const std::vector<fp::DType> dtypes = {fp::DType::F32, fp::DType::F64, fp::DType::BF16,
                                                fp::DType::F16};
  return dtypes;
}

/// The bit patterns of `t`'s elements, row-major, each NaN as the dtype's
/// canonical quiet NaN (Python's `bits`). NaN payloads are not compared:
/// libtorch's own vectorised and scalar loops write different ones.
inline std::vector<std::int64_t> bits(const fp::Tensor& t) {
  const fp::DType dtype = t.dtype();
  const fp::DType as = dtype == fp::DType::F32   ? fp::DType::I32
                       : dtype == fp::DType::F64 ? fp::DType::I64
                                                 : fp::DType::I16;
  const std::int64_t canonical_nan = dtype == fp::DType::F32    ? 0x7FC00000
                                     : dtype == fp::DType::F64  ? 0x7FF8000000000000
                                     : dtype == fp::DType::BF16 ? 0x7FC0
                                                                : 0x7E00;
  std::vector<std::int64_t> out =
      fp::aten::view_dtype(t.contiguous(), as).to_vector<std::int64_t>();
  const std::vector<bool> nan = fp::aten::isnan(t).contiguous().to_vector<bool>();
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (nan[i]) out[i] = canonical_nan;
  }
  return out;
}

/// `f` applied to `x` converted to each dtype of `dtypes` (Python's `per_dtype`).
template <class Function>
Bits per_dtype(const fp::TensorView& x, Function f,
               const std::vector<fp::DType>& dtypes = floating_dtypes()) {
  Bits out;
  for (const fp::DType dtype : dtypes)
    out.push_back(bits(f(x.to(dtype))));
  return out;
}

/// A float64 tensor of `values`: tests read Python's `inputs(seed)` (206
/// elements: the special values, 160 random ones, the special values again)
/// as `input(truth<std::vector<double>>("values(x)"))`.
inline fp::Tensor input(const std::vector<double>& values) {
  return fp::tensor(values);
}

/// Python's `strided(x)`: x[2:] as a transposed [3, 68] view.
inline fp::TensorView strided(const fp::Tensor& x) {
  return fp::aten::t(x.i(fp::slice(2, fp::end)).view({-1, 3}));
}

/// Where two lists of bit patterns differ, as "dtype d, element i: actual vs
/// expected" lines (at most 10), for failure messages.
inline std::string differences(const Bits& actual, const Bits& expected) {
  if (actual.size() != expected.size()) return "different numbers of dtypes";
  std::string text;
  int shown = 0;
  for (std::size_t d = 0; d < actual.size(); ++d) {
    if (actual[d].size() != expected[d].size()) {
      return "different sizes for dtype " + std::to_string(d);
    }
    for (std::size_t i = 0; i < actual[d].size() && shown < 10; ++i) {
      if (actual[d][i] == expected[d][i]) continue;
      text += "dtype " + std::to_string(d) + ", element " + std::to_string(i) + ": " +
              std::to_string(actual[d][i]) + " vs " + std::to_string(expected[d][i]) + "\n";
      ++shown;
    }
  }
  return text;
}

/// The largest distance in ulp between two lists of bit patterns of one
/// dtype each; INT64_MAX where signs or sizes differ.
inline std::int64_t max_ulp(const Bits& actual, const Bits& expected) {
  constexpr std::int64_t unequal = std::numeric_limits<std::int64_t>::max();
  if (actual.size() != expected.size()) return unequal;
  std::int64_t largest = 0;
  for (std::size_t d = 0; d < actual.size(); ++d) {
    if (actual[d].size() != expected[d].size()) return unequal;
    for (std::size_t i = 0; i < actual[d].size(); ++i) {
      const std::int64_t a = actual[d][i], e = expected[d][i];
      if ((a < 0) != (e < 0)) return unequal;
      largest = std::max(largest, std::abs(a - e));
    }
  }
  return largest;
}

}  // namespace nn_test

/// EXPECT_BITS(actual, expected): equal nn_test::Bits, reported by element.
#define EXPECT_BITS(actual, expected)                          \
  do {                                                         \
    const ::nn_test::Bits actual_bits = (actual);              \
    const ::nn_test::Bits expected_bits = (expected);          \
    EXPECT_TRUE(actual_bits == expected_bits)                  \
        << ::nn_test::differences(actual_bits, expected_bits); \
  } while (false)
