// Shared by the nn tests: inputs both languages draw from the same seeded
// generator, and comparisons that report how far apart two results are.
//
// Python blocks use `g(seed)` from each file's PYTHON_GLOBAL block:
//     x = torch.randn(2, 3, generator=g(1))   <->   randn({2, 3}, 1)
#pragma once

#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace nn_test {

/// torch.randn(sizes, generator=torch.Generator().manual_seed(seed)).
inline fp::Tensor randn(fp::IntList sizes, std::uint64_t seed) {
  fp::Generator generator(seed);
  return fp::randn(sizes, generator);
}

/// torch.rand(sizes, generator=torch.Generator().manual_seed(seed)).
inline fp::Tensor rand(fp::IntList sizes, std::uint64_t seed) {
  fp::Generator generator(seed);
  return fp::rand(sizes, generator);
}

inline std::vector<std::int64_t> shape(const fp::detail::TensorBase& tensor) {
  return {tensor.sizes().begin(), tensor.sizes().end()};
}

/// All elements as float, row-major.
inline std::vector<float> values(const fp::detail::TensorBase& tensor) {
  return tensor.to_vector<float>();
}

/// The largest |a - b| over all elements; sizes must agree.
inline double max_abs_diff(const std::vector<float>& actual, const std::vector<float>& expected) {
  EXPECT_EQ(actual.size(), expected.size());
  double largest = 0.0;
  for (std::size_t i = 0; i < std::min(actual.size(), expected.size()); ++i) {
    largest = std::max(largest, std::abs(static_cast<double>(actual[i]) - expected[i]));
  }
  return largest;
}

inline double max_abs_diff(const fp::detail::TensorBase& actual,
                           const std::vector<float>& expected) {
  return max_abs_diff(values(actual), expected);
}

/// Equal to Python's values bit for bit (the expected values come from the
/// PyTorch beside the test, with the same CPU settings).
template <class T>
void expect_python(const char* file, int line, const std::vector<T>& actual,
                   const std::vector<T>& expected) {
  ::testing::ScopedTrace trace(file, line, "EXPECT_PYTHON");
  EXPECT_EQ(actual, expected);
}

/// max |actual - expected| <= tolerance.
inline void expect_close(const char* file, int line, const fp::detail::TensorBase& actual,
                         const std::vector<float>& expected, double tolerance) {
  ::testing::ScopedTrace trace(file, line, "EXPECT_CLOSE");
  EXPECT_LE(max_abs_diff(actual, expected), tolerance);
}

}  // namespace nn_test

/// EXPECT_PYTHON(actual, expected): std::vectors equal bit for bit (see
/// nn_test::expect_python). The expected value comes last for python_truth.
#define EXPECT_PYTHON(actual, expected) \
  ::nn_test::expect_python(__FILE__, __LINE__, actual, expected)
/// EXPECT_CLOSE(tensor, tolerance, expected): max |difference| <= tolerance.
#define EXPECT_CLOSE(actual, tolerance, expected) \
  ::nn_test::expect_close(__FILE__, __LINE__, actual, expected, tolerance)

namespace nn_test {

/// The keys of `module.state_dict()`, in order.
inline std::vector<std::string> keys(const fp::nn::ModuleBase& module) {
  return module.state_dict().keys();
}

/// New values for every floating-point entry of `module`'s state dict, drawn
/// like the Python helper `filled(module, seed)`: key i gets
/// randn(shape, generator=g(seed + i)), or rand(...) for running variances
/// (which must be positive); integer entries keep their value. A `scale`
/// (Python's `scale=`) multiplies the randn values.
inline fp::StateDict filled(const fp::nn::ModuleBase& module, std::uint64_t seed = 100,
                            float scale = 1.f) {
  fp::StateDict values;
  std::uint64_t i = 0;
  for (const auto& [key, view] : module.state_dict()) {
    const auto sizes = shape(view);
    if (!fp::is_floating_point(view.dtype())) {
      values.insert(key, view.to_owned());
    } else if (key.ends_with("running_var")) {
      values.insert(key, rand(sizes, seed + i));
    } else {
      const fp::Tensor drawn = randn(sizes, seed + i);
      values.insert(key, scale == 1.f ? drawn : drawn * fp::tensor(scale));
    }
    ++i;
  }
  return values;
}

}  // namespace nn_test
