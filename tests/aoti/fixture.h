// Shared by the aoti tests: the packages and reference outputs that the CTest
// fixture aoti_packages (tests/aoti/make_packages.py) writes into the build
// folder, and exact / tolerant comparisons.
#pragma once

#include <gtest/gtest.h>

#include <flash_powder/aoti/aoti.h>
#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace aoti_test {

/// The fixture's folder: the build's, or $FP_AOTI_DIR (for running the
/// test binary on another machine, e.g. one with a GPU).
inline std::filesystem::path fixture_dir() {
  const char* moved = std::getenv("FP_AOTI_DIR");
  return moved != nullptr && *moved != '\0' ? std::filesystem::path(moved)
                                            : std::filesystem::path(FP_AOTI_DIR);
}

inline std::filesystem::path package(const std::string& name) {
  return fixture_dir() / "packages" / (name + ".pt2");
}

/// The folder make_packages.py writes this lane's references to (its
/// cpu_settings_name()).
inline std::filesystem::path refs_dir() {
  std::string name;
  for (const char* variable :
       {"ATEN_CPU_CAPABILITY", "MKL_ENABLE_INSTRUCTIONS", "ONEDNN_MAX_CPU_ISA", "MKL_CBWR"}) {
    const char* value = std::getenv(variable);
    name += (name.empty() ? "" : "-") + std::string(value && *value ? value : "native");
  }
  return fixture_dir() / "refs" / name;
}

/// `in.<case>.<i>`, `out.<case>.<j>` (Python's loader), `eager.<case>.<j>`.
inline fp::StateDict references(const std::string& name) {
  return fp::safetensors::load(refs_dir() / (name + ".safetensors"));
}

inline std::vector<std::byte> file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

/// Same dtype, shape and bytes.
inline void expect_bit_equal(const fp::TensorView& actual, const fp::TensorView& expected,
                             const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(actual.dtype(), expected.dtype());
  ASSERT_EQ(std::vector<std::int64_t>(actual.sizes().begin(), actual.sizes().end()),
            std::vector<std::int64_t>(expected.sizes().begin(), expected.sizes().end()));
  const auto a = actual.to_vector<float>();
  const auto b = expected.to_vector<float>();
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0)
      << "outputs differ from Python's loader";
}

/// max |actual - expected| <= tolerance.
inline void expect_close(const fp::TensorView& actual, const fp::TensorView& expected,
                         double tolerance, const std::string& what) {
  SCOPED_TRACE(what);
  const auto a = actual.to_vector<float>();
  const auto b = expected.to_vector<float>();
  ASSERT_EQ(a.size(), b.size());
  double largest = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    largest = std::max(largest, std::abs(static_cast<double>(a[i]) - b[i]));
  EXPECT_LE(largest, tolerance);
}

/// Runs `model` on case `name` of `refs` and compares with Python's loader bit for bit.
inline void expect_case(const fp::aoti::Package& model, const fp::StateDict& refs,
                        const std::string& name, std::size_t inputs, std::size_t outputs) {
  std::vector<fp::TensorArg> args;
  for (std::size_t i = 0; i < inputs; ++i)
    args.emplace_back(refs.at("in." + name + "." + std::to_string(i)));
  const auto results = model.run(args);
  ASSERT_EQ(results.size(), outputs);
  for (std::size_t j = 0; j < outputs; ++j)
    expect_bit_equal(results[j], refs.at("out." + name + "." + std::to_string(j)),
                     name + " output " + std::to_string(j));
}

}  // namespace aoti_test
