// Shared by the tests of the docs (README.md, docs/guide/*.md): each example
// is copied here as the page shows it (tools/check_docs.py, CTest
// docs_examples, fails when a page's block is in no test), and runs in a
// folder of its own that holds the files it names ("net.safetensors",
// "cat.png", "model.pt2"), made by the test from values Python can make too.
#pragma once

#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace docs_test {

/// While alive, the current directory is a new, empty folder named after the
/// running test; the previous one comes back and the folder goes after.
class InFolder {
 public:
  InFolder() : previous_(std::filesystem::current_path()) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("fp_docs_" + std::string(info->test_suite_name()) + "_" + info->name());
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
    std::filesystem::current_path(path_);
  }
  ~InFolder() {
    std::error_code ignored;
    std::filesystem::current_path(previous_, ignored);
    std::filesystem::remove_all(path_, ignored);
  }
  InFolder(const InFolder&) = delete;
  InFolder& operator=(const InFolder&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path previous_;
  std::filesystem::path path_;
};

/// Writes `weights` to `file` in the current folder, as PyTorch's
/// `safetensors.torch.save_file(model.state_dict(), file)` would.
inline void save(const fp::StateDict& weights, const std::string& file) {
  fp::safetensors::save(weights, file);
}

}  // namespace docs_test
