// The README's code, compiled and run, so the README cannot drift from the
// library. (The neural-network example lives in tests/nn/test_module.cpp.)
#include <gtest/gtest.h>
#include "support/truth.h"

#include <flash_powder/aten/aten.h>
#include <flash_powder/flash_powder.h>
#include <flash_powder/safetensors/safetensors.h>

#include <filesystem>
#include <sstream>

namespace {

using fp_test::truth;

TEST(Readme, Introduction) {
  fp::Tensor m = fp::tensor({{5.f, 3.f, 5.f}, {1.f, 2.f, 0.f}});  // float32 [2, 3]
  fp::Tensor copy = m;                // an independent value (copy-on-write)
  copy.data_mut<float>()[0] = 100.f;  // m is unchanged
  fp::TensorView view = m;            // a read-only view, like std::span<const float>
  fp::Tensor flipped = fp::dispatch<fp::Tensor>("aten::flip", "", m, std::vector<int64_t>{0});
  auto [values, indices] =
      fp::dispatch<std::tuple<fp::Tensor, fp::Tensor>>("aten::max", "dim", m, 1);

  EXPECT_EQ(m.at<float>({0, 0}), 5.f);
  EXPECT_EQ(view.at<float>({0, 0}), 5.f);
  EXPECT_EQ(flipped.at<float>({0, 0}), 1.f);
  /*
  #|PYTHON
  m = torch.tensor([[5., 3., 5.], [1., 2., 0.]])
  values, indices = torch.ops.aten.max.dim(m, 1)
  */
  EXPECT_EQ(indices.to_vector<int64_t>(),
            (std::vector<int64_t>{0, 1}));  // #PYTHON indices.tolist()
}

TEST(Readme, ValuesAndViews) {
  std::ostringstream out;
  fp::Tensor d = fp::arange(1.f, 17.f).reshape({4, 4});
  {
    fp::TensorMutView column = d.i_mut(fp::all, 1);    // d[:, 1], writable
    column.fill_(0);                                   // d changes
  }                                                    // (one writer at a time: it ends here)
  fp::TensorView top = d.i(fp::slice(0, 2), fp::all);  // d[0:2, :]   a view
  fp::TensorView last = d.i(-1);                       // d[-1]       a view
  fp::Tensor picked = d.index(fp::tensor({int64_t{3}, int64_t{0}}));  // d[[3, 0]]  a copy
  fp::Tensor copy = d;        // independent of d from now on
  out << d.sum({1}) << '\n';  // prints exactly like Python's repr

  /*
  #|PYTHON
  d = torch.arange(1., 17.).reshape(4, 4)
  d[:, 1] = 0
  */
  EXPECT_EQ(out.str(), "tensor([ 8., 20., 32., 44.])\n");  // #PYTHON repr(d.sum(1)) + "\n"
  EXPECT_EQ(top.numel(), 8);
  EXPECT_EQ(last.at<float>({1}), 0.f);
  EXPECT_EQ(picked.at<float>({0, 0}), 13.f);
  EXPECT_TRUE(copy.is_equal(d));
}

TEST(Readme, Ops) {
  fp::Tensor m = fp::tensor({{0.25f, 0.75f}, {1.f, 0.f}});
  const fp::Tensor a = fp::ones({1, 2});
  const fp::Tensor b = fp::zeros({1, 2});
  fp::Tensor p = m * fp::tensor(100.f) + 1.0;  // operators; numbers promote like Python numbers
  fp::Tensor mask = m > 0.5;                   // bool tensors
  m += 1;                                      // in place (Tensor and TensorMutView only)
  auto [values, indices] = m.max(1);           // reductions, sort, topk, cumsum, std, ...
  fp::Tensor joined = fp::cat({a, b}, 0);      // cat, stack, hstack, vstack, where, clamp, matmul
  fp::Tensor y = fp::aten::flip(m, {0});       // every ATen op the stable ABI can carry, typed
  fp::Tensor z = fp::dispatch<fp::Tensor>("aten::flip", "", m, std::vector<int64_t>{0});

  /*
  #|PYTHON
  m = torch.tensor([[0.25, 0.75], [1.0, 0.0]])
  p = m * torch.tensor(100.) + 1.0
  m += 1
  values, indices = m.max(1)
  */
  EXPECT_EQ(p.to_vector<float>(), truth<std::vector<float>>("p.flatten().tolist()"));
  EXPECT_EQ(mask.dtype(), fp::DType::Bool);
  EXPECT_EQ(values.to_vector<float>(), truth<std::vector<float>>("values.tolist()"));
  EXPECT_EQ(joined.size(0), 2);
  EXPECT_TRUE(y.is_equal(z));
}

TEST(Readme, Safetensors) {
  const auto folder = std::filesystem::temp_directory_path() / "fp_readme_safetensors";
  std::filesystem::create_directories(folder);
  const std::string model = (folder / "model.safetensors").string();
  const std::string copy_path = (folder / "copy.safetensors").string();
  fp::StateDict source;
  source.insert("features.0.weight", fp::ones({2, 3}));
  fp::safetensors::save(source, model);

  fp::StateDict weights = fp::safetensors::load(model);   // owned tensors
  auto file = fp::safetensors::MappedFile::open(model);   // zero-copy views
  fp::TensorView w = file.get("features.0.weight");       // stays valid after `file` is gone
  auto copied = fp::safetensors::MappedFile::open(model,  // the same, from a copy
                                                  {.access = fp::safetensors::FileAccess::Copy});
  fp::safetensors::save(weights, copy_path, {{"format", "pt"}});  // atomic write

  EXPECT_TRUE(w.is_equal(weights.at("features.0.weight")));
  EXPECT_TRUE(copied.get("features.0.weight").is_equal(w));
  EXPECT_EQ(fp::safetensors::MappedFile::open(copy_path).metadata()->at("format"), "pt");
  std::filesystem::remove_all(folder);
}

}  // namespace
