// docs/guide/safetensors.md, compiled and run (tools/check_docs.py keeps the
// page's blocks and these in step).
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>

#include <filesystem>
#include <string>
#include <vector>

#include "docs/docs_test.h"
#include "nn/helpers.h"

namespace guide_safetensors {

TEST(GuideSafetensors, LoadMapSave) {
  const docs_test::InFolder folder;
  fp::StateDict source;
  source.insert("features.0.weight", nn_test::randn({4, 3}, 1));
  source.insert("features.0.bias", nn_test::randn({4}, 2));
  fp::safetensors::save(source, "model.safetensors");

  fp::StateDict weights = fp::safetensors::load("model.safetensors");  // owned tensors
  auto file = fp::safetensors::MappedFile::open("model.safetensors");  // zero-copy views
  fp::TensorView w = file.get("features.0.weight");  // stays valid after `file` is gone
  auto copied = fp::safetensors::MappedFile::open("model.safetensors",  // the same, from a copy
                                                  {.access = fp::safetensors::FileAccess::Copy});
  fp::safetensors::save(weights, "copy.safetensors", {{"format", "pt"}});  // atomic write

  EXPECT_TRUE(weights.at("features.0.weight").is_equal(source.at("features.0.weight")));
  EXPECT_TRUE(w.is_equal(source.at("features.0.weight")));
  EXPECT_TRUE(copied.get("features.0.bias").is_equal(source.at("features.0.bias")));
  const auto again = fp::safetensors::MappedFile::open("copy.safetensors");
  EXPECT_EQ(again.metadata()->at("format"), "pt");
  EXPECT_EQ(again.keys(), file.keys());
  // The bytes Python's save_file writes for the same tensors.
  EXPECT_EQ(fp::safetensors::save_to_bytes(source).size(),
            std::filesystem::file_size("model.safetensors"));
}

TEST(GuideSafetensors, Modules) {
  const docs_test::InFolder folder;
  fp::safetensors::save({{"weight", nn_test::randn({2, 3}, 1)}, {"bias", nn_test::randn({2}, 2)}},
                        "linear.safetensors");

  fp::nn::Linear layer(3, 2);
  layer.load_state_dict(fp::safetensors::MappedFile::open("linear.safetensors"));
  fp::safetensors::save(layer.state_dict().entries(), "saved.safetensors");  // a module's weights
  fp::safetensors::save({{"x", fp::ones({2})}, {"y", fp::zeros({3})}}, "named.safetensors");

  EXPECT_TRUE(layer.weight.is_equal(nn_test::randn({2, 3}, 1)));
  const fp::StateDict saved = fp::safetensors::load("saved.safetensors");
  EXPECT_TRUE(saved.at("bias").is_equal(nn_test::randn({2}, 2)));
  EXPECT_EQ(fp::safetensors::load("named.safetensors").keys(),
            (std::vector<std::string>{"x", "y"}));
}

}  // namespace guide_safetensors
