// docs/guide/ops.md, compiled and run (tools/check_docs.py keeps the page's
// blocks and these in step).
#include <gtest/gtest.h>

#include <flash_powder/aten/aten.h>  // fp::aten
#include <flash_powder/aten/shim.h>  // fp::aten::shim
#include <flash_powder/flash_powder.h>

#include <iostream>
#include <string>
#include <tuple>
#include <vector>

#include "support/expect_error.h"
#include "support/truth.h"

namespace guide_ops {

using fp_test::truth;

/*
#|PYTHON_GLOBAL
from truth_helpers import values, message
*/

TEST(GuideOps, MethodsAndOperators) {
  fp::Tensor m = fp::tensor({{0.25f, 0.75f}, {1.f, 0.f}});
  fp::Tensor p = m * fp::tensor(100.f) + 1.0;          // operators; numbers promote like Python's
  fp::Tensor mask = m > 0.5;                           // a bool tensor
  fp::Tensor kept = fp::where(mask, m, 0.f);           // torch.where(mask, m, 0.)
  m += 1;                                              // in place: Tensor and TensorMutView only
  auto [values, indices] = m.max(1);                   // reductions, sort, topk, cumsum, std, ...
  fp::Tensor joined = fp::cat({m, p}, 0);              // cat, stack, hstack, vstack, clamp, matmul
  fp::Tensor flags = (m.to(fp::DType::I32) << 2) | 1;  // bitwise operators on integers

  /*
  #|PYTHON
  m = torch.tensor([[0.25, 0.75], [1., 0.]])
  p = m * torch.tensor(100.) + 1.0
  mask = m > 0.5
  kept = torch.where(mask, m, 0.)
  m += 1
  max_values, max_indices = m.max(1)
  joined = torch.cat([m, p], 0)
  flags = (m.to(torch.int32) << 2) | 1
  */
  EXPECT_EQ(p.to_vector<float>(), truth<std::vector<float>>("values(p)"));
  EXPECT_EQ(mask.to_vector<bool>(),
            (std::vector<bool>{false, true, true, false}));  // #PYTHON values(mask)
  EXPECT_EQ(kept.to_vector<float>(),
            (std::vector<float>{0.0, 0.75, 1.0, 0.0}));  // #PYTHON values(kept)
  EXPECT_EQ(values.to_vector<float>(),
            (std::vector<float>{1.75, 2.0}));  // #PYTHON values(max_values)
  EXPECT_EQ(indices.to_vector<int64_t>(),
            (std::vector<int64_t>{1, 0}));  // #PYTHON values(max_indices)
  EXPECT_EQ(joined.to_vector<float>(), truth<std::vector<float>>("values(joined)"));
  EXPECT_EQ(flags.to_vector<int32_t>(),
            (std::vector<int32_t>{5, 5, 9, 5}));  // #PYTHON values(flags)
  EXPECT_EQ(flags.dtype(), fp::DType::I32);       // #PYTHON flags.dtype
}

TEST(GuideOps, Aten) {
  fp::Tensor m = fp::tensor({{5.f, 3.f}, {1.f, 2.f}});
  fp::Tensor y = fp::aten::flip(m, {0});                 // aten::flip
  auto [values, indices] = fp::aten::max_dim(m, 1);      // aten::max.dim, keepdim=False
  fp::Tensor e = fp::aten::special_erfcx(m);             // torch.special.erfcx
  fp::TensorView t = fp::aten::transpose_int(m, 0, 1);   // a view of m, as the schema says
  fp::Tensor half = fp::aten::shim::mul_Scalar(m, 0.5);  // aten::mul.Scalar, through its C shim

  /*
  #|PYTHON
  m = torch.tensor([[5., 3.], [1., 2.]])
  max_values, max_indices = torch.ops.aten.max.dim(m, 1)
  e = torch.special.erfcx(m)
  half = torch.ops.aten.mul.Scalar(m, 0.5)
  */
  EXPECT_EQ(y.to_vector<float>(),
            (std::vector<float>{1.0, 2.0, 5.0, 3.0}));  // #PYTHON values(m.flip(0))
  EXPECT_EQ(values.to_vector<float>(),
            (std::vector<float>{5.0, 2.0}));  // #PYTHON values(max_values)
  EXPECT_EQ(indices.to_vector<int64_t>(),
            (std::vector<int64_t>{0, 1}));  // #PYTHON values(max_indices)
  EXPECT_EQ(e.to_vector<float>(), truth<std::vector<float>>("values(e)"));
  EXPECT_EQ(t.to_vector<float>(),
            (std::vector<float>{5.0, 1.0, 3.0, 2.0}));  // #PYTHON values(m.t())
  EXPECT_EQ(half.to_vector<float>(), truth<std::vector<float>>("values(half)"));
#if FP_BORROW_CHECK
  EXPECT_FP_ERROR(fp::ErrorCode::Borrow, "", fp::aten::abs_(m));  // t is a view of m
#endif
}

TEST(GuideOps, Dispatch) {
  fp::Tensor m = fp::tensor({{5.f, 3.f}, {1.f, 2.f}});
  fp::Tensor y = fp::dispatch<fp::Tensor>("aten::flip", "", m, std::vector<int64_t>{0});
  auto [values, indices] =
      fp::dispatch<std::tuple<fp::Tensor, fp::Tensor>>("aten::max", "dim", m, 1);
  fp::TensorView t = fp::dispatch<fp::TensorView>("aten::transpose", "int", m, 0, 1);  // a view
  fp::Tensor u = fp::dispatch<fp::Tensor>("aten::transpose", "int", m, 0, 1);          // a copy

  EXPECT_TRUE(y.is_equal(fp::aten::flip(m, {0})));
  EXPECT_TRUE(values.is_equal(std::get<0>(fp::aten::max_dim(m, 1))));
  EXPECT_TRUE(indices.is_equal(std::get<1>(fp::aten::max_dim(m, 1))));
  EXPECT_TRUE(t.is_equal(u));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "the schema is",
                  fp::dispatch<fp::Tensor>("aten::flip", "", m, "zero"));
}

TEST(GuideOps, Errors) {
  testing::internal::CaptureStderr();
  try {
    fp::Tensor c = fp::ones({2, 3}).matmul(fp::ones({2, 3}));
  } catch (const fp::Error& error) {
    if (error.code() == fp::ErrorCode::TorchError) {  // decide by the code, not the words
      std::cerr << error.what()
                << '\n';  // aten::matmul: mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)
    }
  }
  const std::string printed = testing::internal::GetCapturedStderr();

  /*
  #|PYTHON
  # torch 2.15 puts "mm: " before the words: the words are what is shown.
  what = message(lambda: torch.ones(2, 3).matmul(torch.ones(2, 3))).removeprefix("mm: ")
  */
  const std::string torch_says =
      "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)";  // #PYTHON what
  EXPECT_TORCH_ERROR(torch_says, (void)fp::ones({2, 3}).matmul(fp::ones({2, 3})));
  EXPECT_NE(printed.find("aten::matmul: "), std::string::npos) << printed;
}

}  // namespace guide_ops
