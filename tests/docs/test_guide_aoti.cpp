// docs/guide/aoti.md, compiled and run (tools/check_docs.py keeps the page's
// blocks and these in step), on the packages of the CTest fixture
// aoti_packages (tests/aoti/make_packages.py: tests/aoti/models.py's Mlp,
// exported with tools/export_aoti.py, and Python's loader's outputs).
#include <gtest/gtest.h>

#include <flash_powder/aoti/aoti.h>
#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>

#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "aoti/fixture.h"
#include "docs/docs_test.h"
#include "support/expect_error.h"

namespace guide_aoti {

TEST(GuideAoti, Run) {
  const docs_test::InFolder folder;
  std::filesystem::copy_file(aoti_test::package("mlp"), "mlp.pt2");
  const fp::StateDict refs = aoti_test::references("mlp");
  const fp::Tensor& x = refs.at("in.b7.0");
  const fp::Tensor& y = refs.at("in.b7.1");
  // Another seed's weights for the same Mlp, and what PyTorch computes with them.
  std::filesystem::copy_file(aoti_test::refs_dir() / "mlp_new_weights.safetensors",
                             "finetuned.safetensors");
  testing::internal::CaptureStdout();

  auto model = fp::aoti::Package::open("mlp.pt2", {.num_runners = 2});  // or from bytes
  std::vector<fp::Tensor> out = model(x, y);  // like aoti_load_package(path)(x, y); thread-safe
  for (const fp::aoti::InputSpec& input : model.signature()->inputs)
    std::cout << input.name << '\n';
  model.load_weights(fp::safetensors::MappedFile::open("finetuned.safetensors"));  // same graph

  EXPECT_EQ(testing::internal::GetCapturedStdout(), "x\ny\n");
  ASSERT_EQ(out.size(), 2u);
  // What Python's aoti_load_package(path)(x, y) gave.
  aoti_test::expect_bit_equal(out[0], refs.at("out.b7.0"), "out 0");
  aoti_test::expect_bit_equal(out[1], refs.at("out.b7.1"), "out 1");
  // The new weights give what the eager module gives with them (Inductor's
  // kernels round differently from eager's: within 1e-5).
  const std::vector<fp::Tensor> swapped = model(x, y);
  const fp::StateDict eager =
      fp::safetensors::load(aoti_test::refs_dir() / "mlp_swapped.safetensors");
  aoti_test::expect_close(swapped[0], eager.at("swapped.0"), 1e-5, "new weights, out 0");
  aoti_test::expect_close(swapped[1], eager.at("swapped.1"), 1e-5, "new weights, out 1");

  testing::internal::CaptureStderr();
  try {
    model(fp::randn({2, 5}), y);
  } catch (const fp::Error& error) {
    std::cerr << error.what() << '\n';  // names the input, the size it has and the one it needs
  }
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_NE(said.find("x"), std::string::npos) << said;
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "", model(fp::randn({2, 5}), y));
}

}  // namespace guide_aoti
