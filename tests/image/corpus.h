// The image corpus the CTest fixture `image_corpus` writes into the build
// folder (tests/image/make_corpus.py): encoded files and what Pillow decodes.
#pragma once

#include <flash_powder/flash_powder.h>
#include <flash_powder/image/image.h>
#include <flash_powder/safetensors/safetensors.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fp_test::image {

inline std::filesystem::path corpus_dir() {
  return FP_IMAGE_CORPUS_DIR;
}
inline std::filesystem::path corpus_file(const std::string& name) {
  return corpus_dir() / name;
}

struct Case {
  std::string name;
  std::filesystem::path file;
  std::filesystem::path expected;
  std::string kind;  ///< "generated" or "found"
};

inline nlohmann::json manifest() {
  std::ifstream in(corpus_dir() / "manifest.json");
  if (!in) throw std::runtime_error("no corpus manifest: run the CTest fixture image_corpus");
  return nlohmann::json::parse(in);
}

inline std::vector<Case> cases() {
  const nlohmann::json all = manifest();  // a named value: the loop refers into it
  std::vector<Case> out;
  for (const auto& c : all.at("cases")) {
    out.push_back({c.at("name"), c.at("file").get<std::string>(),
                   c.at("expected").get<std::string>(), c.at("kind")});
  }
  return out;
}

/// A file Pillow refuses, and Pillow's error.
struct Refused {
  std::string name;
  std::filesystem::path file;
  std::string pillow;
};

inline std::vector<Refused> refused() {
  const nlohmann::json all = manifest();
  std::vector<Refused> out;
  for (const auto& c : all.at("refused")) {
    out.push_back({c.at("name"), c.at("file").get<std::string>(), c.at("pillow")});
  }
  return out;
}

inline std::map<std::string, fp::Tensor> expected(const Case& c) {
  std::map<std::string, fp::Tensor> out;
  for (auto& [name, tensor] : fp::safetensors::load(c.expected))
    out.emplace(name, tensor);
  return out;
}

/// Equal dtype, shape and every element; on failure says where the first difference is.
inline ::testing::AssertionResult same_pixels(const fp::Tensor& actual, const fp::Tensor& wanted) {
  if (actual.dtype() != wanted.dtype()) {
    return ::testing::AssertionFailure()
           << "dtype " << fp::name(actual.dtype()) << " != " << fp::name(wanted.dtype());
  }
  const std::vector<std::int64_t> a(actual.sizes().begin(), actual.sizes().end());
  const std::vector<std::int64_t> b(wanted.sizes().begin(), wanted.sizes().end());
  if (a != b) {
    auto text = [](const std::vector<std::int64_t>& s) {
      std::string t;
      for (auto v : s)
        t += (t.empty() ? "" : ", ") + std::to_string(v);
      return "[" + t + "]";
    };
    return ::testing::AssertionFailure() << "shape " << text(a) << " != " << text(b);
  }
  if (!actual.is_contiguous()) return ::testing::AssertionFailure() << "not contiguous";
  if (actual.is_equal(wanted)) return ::testing::AssertionSuccess();
  const fp::Tensor diff = (actual.to(fp::DType::I32) - wanted.to(fp::DType::I32)).abs();
  return ::testing::AssertionFailure()
         << diff.gt(0).sum().item<std::int64_t>() << " of " << diff.numel()
         << " samples differ, by up to " << diff.max().item<std::int32_t>();
}

}  // namespace fp_test::image
