// What the fp::vision::ops tests share: torchvision's results, written at
// test time by tests/vision/make_ops_truth.py, and a bit-for-bit comparison.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>

#include "flash_powder/abi/runtime.h"
#include "flash_powder/flash_powder.h"
#include "flash_powder/safetensors/safetensors.h"

namespace fp_test {

/// OUT_DIR/<kind>-CAP.safetensors of make_ops_truth.py, for this lane's CPU capability.
/// Loaded by each test (a test may leave no libtorch handle alive).
inline fp::StateDict ops_truth(const std::string& kind) {
  const std::filesystem::path file =
      std::filesystem::path(FP_VISION_OPS_TRUTH_DIR) /
      (kind + "-" + std::string(fp::torch_cpu_capability()) + ".safetensors");
  return fp::safetensors::load(file.string());
}

template <class T>
bool same_bytes(const fp::Tensor& a, const fp::Tensor& b) {
  const auto x = a.data<T>();
  const auto y = b.data<T>();
  if (x.size() != y.size()) return false;
  return x.empty() || std::memcmp(x.data(), y.data(), x.size_bytes()) == 0;  // no memcmp of null
}

inline std::string shape(fp::TensorView t) {
  std::string text = "[";
  for (std::int64_t d = 0; d < t.dim(); ++d)
    text += (d > 0 ? ", " : "") + std::to_string(t.size(d));
  return text + "]";
}

/// Same dtype, shape and bits (NaNs and signed zeros included).
inline ::testing::AssertionResult bit_equal(fp::TensorView actual, fp::TensorView expected) {
  if (actual.dtype() != expected.dtype()) {
    return ::testing::AssertionFailure()
           << "dtype " << fp::name(actual.dtype()) << " vs " << fp::name(expected.dtype());
  }
  if (!std::ranges::equal(actual.sizes(), expected.sizes())) {
    return ::testing::AssertionFailure() << "shape " << shape(actual) << " vs " << shape(expected);
  }
  const fp::Tensor a = actual.contiguous();
  const fp::Tensor b = expected.contiguous();
  bool same = false;
  switch (a.dtype()) {
    case fp::DType::F16:
      same = same_bytes<fp::Half>(a, b);
      break;
    case fp::DType::F32:
      same = same_bytes<float>(a, b);
      break;
    case fp::DType::F64:
      same = same_bytes<double>(a, b);
      break;
    case fp::DType::I64:
      same = same_bytes<std::int64_t>(a, b);
      break;
    case fp::DType::I32:
      same = same_bytes<std::int32_t>(a, b);
      break;
    default:
      same = a.is_equal(b);
      break;
  }
  if (same) return ::testing::AssertionSuccess();
  auto failure = ::testing::AssertionFailure() << "values of shape " << shape(actual) << " differ";
  if (actual.numel() <= 64) failure << ":\n" << actual << "\nexpected:\n" << expected;
  return failure;
}

}  // namespace fp_test
