// Reductions, shapes, joining, selection and conversions against Python;
// which methods return views (and alias) and which return copies (and don't).
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include <utility>

#include "support/expect_error.h"
#include "support/shapes.h"
#include "support/truth.h"

namespace {

using fp_test::truth;

using fp_test::shape;
using fp_test::strides;

using fp::DType;
using fp::Tensor;
using fp::TensorView;

/// torch.arange(24.).reshape(2, 3, 4), the `x` of the Python blocks.
Tensor cube() {
  return fp::arange(24.0).reshape({2, 3, 4});
}

/*
#|PYTHON_GLOBAL
x = torch.arange(24.).reshape(2, 3, 4)
*/

TEST(Reductions, SumMeanProd) {
  const Tensor x = cube();
  EXPECT_EQ(x.sum().item<double>(), truth<double>("x.sum().item()"));
  EXPECT_EQ(x.sum({1}).to_vector<double>(),
            truth<std::vector<double>>("x.sum(1).flatten().tolist()"));
  EXPECT_EQ(shape(x.sum({0, 2}, true)),
            (std::vector<int64_t>{1, 3, 1}));  // #PYTHON list(x.sum([0, 2], keepdim=True).shape)
  EXPECT_EQ(x.sum({1}, false, DType::F64).dtype(),
            fp::DType::F64);  // #PYTHON x.sum(1, dtype=torch.float64).dtype
  EXPECT_EQ(x.mean({-1}).to_vector<double>(),
            truth<std::vector<double>>("x.mean(-1).flatten().tolist()"));
  EXPECT_EQ(x.mean().item<double>(), truth<double>("x.mean().item()"));
  EXPECT_EQ((x / 10 + 1).prod(2).to_vector<double>(),
            truth<std::vector<double>>("(x / 10 + 1).prod(2).flatten().tolist()"));
  EXPECT_EQ(fp::arange(1, 6).prod().item<int64_t>(),
            120);  // #PYTHON torch.arange(1, 6).prod().item()
}

TEST(Reductions, MinMaxArgTopkSortCumsum) {
  /*
  #|PYTHON
  v = torch.tensor([[3., 1., 4., 1.], [5., 9., 2., 6.]])
  values, indices = v.max(1)
  top_values, top_indices = v.topk(2)
  sorted_values, sorted_indices = v.sort(1, descending=True)
  */
  const Tensor v = fp::tensor({{3.f, 1.f, 4.f, 1.f}, {5.f, 9.f, 2.f, 6.f}});
  EXPECT_EQ(v.min().item<double>(), truth<double>("v.min().item()"));
  EXPECT_EQ(v.max().item<double>(), truth<double>("v.max().item()"));
  auto [values, indices] = v.max(1);
  EXPECT_EQ(values.to_vector<double>(), truth<std::vector<double>>("values.tolist()"));
  EXPECT_EQ(indices.to_vector<int64_t>(),
            (std::vector<int64_t>{2, 1}));  // #PYTHON indices.tolist()
  EXPECT_EQ(std::get<1>(v.min(0)).to_vector<int64_t>(),
            (std::vector<int64_t>{0, 0, 1, 0}));  // #PYTHON v.min(0)[1].tolist()
  EXPECT_EQ(v.amax({0}).to_vector<double>(), truth<std::vector<double>>("v.amax(0).tolist()"));
  EXPECT_EQ(v.amin().item<double>(), truth<double>("v.amin().item()"));
  EXPECT_EQ(v.argmax().item<int64_t>(), 5);  // #PYTHON v.argmax().item()
  EXPECT_EQ(v.argmin(1).to_vector<int64_t>(),
            (std::vector<int64_t>{1, 2}));  // #PYTHON v.argmin(1).tolist()
  auto [top_values, top_indices] = v.topk(2);
  EXPECT_EQ(top_values.to_vector<double>(),
            truth<std::vector<double>>("top_values.flatten().tolist()"));
  EXPECT_EQ(top_indices.to_vector<int64_t>(),
            (std::vector<int64_t>{2, 0, 1, 3}));  // #PYTHON top_indices.flatten().tolist()
  auto [sorted_values, sorted_indices] = v.sort(1, true);
  EXPECT_EQ(sorted_values.to_vector<double>(),
            truth<std::vector<double>>("sorted_values.flatten().tolist()"));
  EXPECT_EQ(
      sorted_indices.to_vector<int64_t>(),
      (std::vector<int64_t>{2, 0, 1, 3, 1, 3, 0, 2}));  // #PYTHON sorted_indices.flatten().tolist()
  EXPECT_EQ(v.cumsum(1).to_vector<double>(),
            truth<std::vector<double>>("v.cumsum(1).flatten().tolist()"));
}

TEST(Reductions, StdAndVar) {
  const Tensor x = cube();
  EXPECT_EQ(x.std().item<double>(), truth<double>("x.std().item()"));
  EXPECT_EQ(x.std(std::vector<int64_t>{1}, false).to_vector<double>(),
            truth<std::vector<double>>("x.std(1, unbiased=False).flatten().tolist()"));
  EXPECT_EQ(
      x.var(std::vector<int64_t>{0, 2}, true, true).to_vector<double>(),
      truth<std::vector<double>>("x.var([0, 2], unbiased=True, keepdim=True).flatten().tolist()"));
}

// --- views and copies -----------------------------------------------------------------

TEST(Views, ShapeOpsMatchPython) {
  const Tensor x = cube();
  EXPECT_EQ(shape(x.view({6, 4})),
            (std::vector<int64_t>{6, 4}));  // #PYTHON list(x.view(6, 4).shape)
  EXPECT_EQ(shape(x.permute({2, 0, 1})),
            (std::vector<int64_t>{4, 2, 3}));  // #PYTHON list(x.permute(2, 0, 1).shape)
  EXPECT_EQ(strides(x.permute({2, 0, 1})),
            (std::vector<int64_t>{1, 12, 4}));  // #PYTHON list(x.permute(2, 0, 1).stride())
  EXPECT_EQ(strides(x.transpose(0, 2)),
            (std::vector<int64_t>{1, 4, 12}));  // #PYTHON list(x.transpose(0, 2).stride())
  EXPECT_EQ(shape(x.unsqueeze(1)),
            (std::vector<int64_t>{2, 1, 3, 4}));  // #PYTHON list(x.unsqueeze(1).shape)
  EXPECT_EQ(shape(x.unsqueeze(0).squeeze()),
            (std::vector<int64_t>{2, 3, 4}));  // #PYTHON list(x.unsqueeze(0).squeeze().shape)
  EXPECT_EQ(shape(x.unsqueeze(0).squeeze(0)),
            (std::vector<int64_t>{2, 3, 4}));  // #PYTHON list(x.unsqueeze(0).squeeze(0).shape)
  EXPECT_EQ(x.narrow(2, 1, 2).to_vector<double>(),
            truth<std::vector<double>>("x.narrow(2, 1, 2).flatten().tolist()"));
  EXPECT_EQ(x.select(1, -1).to_vector<double>(),
            truth<std::vector<double>>("x.select(1, -1).flatten().tolist()"));
  EXPECT_EQ(shape(x.select(0, 0).expand({5, 3, 4})),
            (std::vector<int64_t>{5, 3, 4}));  // #PYTHON list(x[0].expand(5, 3, 4).shape)
  EXPECT_EQ(strides(x.select(0, 0).expand({5, 3, 4})),
            (std::vector<int64_t>{0, 4, 1}));  // #PYTHON list(x[0].expand(5, 3, 4).stride())
  EXPECT_EQ(x.chunk(2, 2).size(), 2u);         // #PYTHON len(x.chunk(2, 2))
  EXPECT_EQ(x.chunk(2, 2)[1].to_vector<double>(),
            truth<std::vector<double>>("x.chunk(2, 2)[1].flatten().tolist()"));
  EXPECT_EQ(x.split(2, 1).size(), 2u);  // #PYTHON len(x.split(2, 1))
  EXPECT_EQ(shape(x.split(2, 1)[1]),
            (std::vector<int64_t>{2, 1, 4}));  // #PYTHON list(x.split(2, 1)[1].shape)
  EXPECT_EQ(shape(x.split({1, 3}, 2)[1]),
            (std::vector<int64_t>{2, 3, 3}));  // #PYTHON list(x.split([1, 3], 2)[1].shape)
  EXPECT_EQ(x.unbind(1)[2].to_vector<double>(),
            truth<std::vector<double>>("x.unbind(1)[2].flatten().tolist()"));
}

TEST(Views, CopiesWhereTorchMightAlias) {
  const Tensor x = cube();
  EXPECT_EQ(shape(x.reshape({4, -1})),
            (std::vector<int64_t>{4, 6}));  // #PYTHON list(x.reshape(4, -1).shape)
  EXPECT_EQ(shape(x.flatten(1)),
            (std::vector<int64_t>{2, 12}));                   // #PYTHON list(x.flatten(1).shape)
  EXPECT_EQ(shape(x.flatten()), (std::vector<int64_t>{24}));  // #PYTHON list(x.flatten().shape)
  EXPECT_EQ(
      strides(x.transpose(0, 1).contiguous()),
      (std::vector<int64_t>{8, 4, 1}));  // #PYTHON list(x.transpose(0, 1).contiguous().stride())
  EXPECT_EQ(x.transpose(0, 1).contiguous().to_vector<double>(),
            x.transpose(0, 1).to_vector<double>());
}

TEST(Views, ViewsAliasAndCopiesDoNot) {
  Tensor x = cube();
  const Tensor reshaped = x.reshape({24});
  const Tensor flat = x.flatten();
  const Tensor moved = x.to(DType::F32);
  const Tensor cloned = x.clone();
  const Tensor contiguous = x.contiguous();
  // Of a contiguous tensor, a lazy copy: the same memory until one is written.
  EXPECT_EQ(contiguous.data<float>().data(), std::as_const(x).data<float>().data());
  {
    fp::TensorMutView row = x.i_mut(0, 0);
    row.fill_(-1);
  }
  EXPECT_EQ(contiguous.at<float>({0, 0, 3}), 3.f);
  EXPECT_EQ(x.at<float>({0, 0, 3}), -1.f);
  EXPECT_EQ(reshaped.at<float>({3}), 3.f);
  EXPECT_EQ(flat.at<float>({3}), 3.f);
  EXPECT_EQ(moved.at<float>({0, 0, 3}), 3.f);
  EXPECT_EQ(cloned.at<float>({0, 0, 3}), 3.f);
  const TensorView transposed = x.transpose(0, 2);
  EXPECT_EQ(transposed.at<float>({3, 0, 0}), -1.f);  // a view sees the write
}

#if FP_BORROW_CHECK
TEST(Views, TheBorrowCheckerTracksMethodViews) {
  Tensor x = cube();
  {
    const TensorView v = x.view({24});
    EXPECT_FP_ERROR(fp::ErrorCode::Borrow, "fp::BorrowError", x.fill_(0));
    const auto parts = x.split(1, 0);
    EXPECT_FP_ERROR(fp::ErrorCode::Borrow, "while 3 TensorViews", x.zero_());
  }
  EXPECT_NO_THROW(x.fill_(0));
}
#endif

TEST(Views, MethodsWorkOnViewsAndMutableViews) {
  Tensor x = cube();
  const TensorView v = x.transpose(0, 1);
  EXPECT_EQ(
      shape(v.select(0, 1).unsqueeze(0)),
      (std::vector<int64_t>{1, 2, 4}));  // #PYTHON list(x.transpose(0, 1)[1].unsqueeze(0).shape)
  EXPECT_EQ(v.sum().item<double>(), truth<double>("x.transpose(0, 1).sum().item()"));
}

// --- joining, selection, products, conversions -------------------------------------------

TEST(Joining, CatStackHstackVstack) {
  /*
  #|PYTHON
  a = torch.tensor([[1., 2.], [3., 4.]])
  b = torch.tensor([[5., 6.]])
  */
  const Tensor a = fp::tensor({{1.f, 2.f}, {3.f, 4.f}});
  const Tensor b = fp::tensor({{5.f, 6.f}});
  EXPECT_EQ(fp::cat({a, b}).to_vector<double>(),
            truth<std::vector<double>>("torch.cat([a, b]).flatten().tolist()"));
  EXPECT_EQ(shape(fp::stack({a, a}, 1)),
            (std::vector<int64_t>{2, 2, 2}));  // #PYTHON list(torch.stack([a, a], 1).shape)
  EXPECT_EQ(shape(fp::hstack({a, a})),
            (std::vector<int64_t>{2, 4}));  // #PYTHON list(torch.hstack([a, a]).shape)
  EXPECT_EQ(fp::vstack({a, b}).to_vector<double>(),
            truth<std::vector<double>>("torch.vstack([a, b]).flatten().tolist()"));
  const std::vector<Tensor> pieces = {a, a, a};
  EXPECT_EQ(shape(fp::cat(pieces, 1)),
            (std::vector<int64_t>{2, 6}));  // #PYTHON list(torch.cat([a, a, a], 1).shape)
}

TEST(Selection, WhereMaskedFillClamp) {
  /*
  #|PYTHON
  v = torch.tensor([-2., -0.5, 0.5, 2.])
  c = v > 0
  w = torch.where(c, v, 0.)
  w2 = torch.where(c, 1, 2.5)
  m = v.masked_fill(c, 7)
  k = v.clamp(-1, 1)
  k2 = torch.clamp(torch.tensor([1, 5, 9]), max=6)
  */
  const Tensor v = fp::tensor({-2.f, -0.5f, 0.5f, 2.f});
  const Tensor c = v > 0;
  EXPECT_EQ(fp::where(c, v, 0.0).to_vector<double>(), truth<std::vector<double>>("w.tolist()"));
  EXPECT_EQ(fp::where(c, v, 0.0).dtype(), fp::DType::F32);  // #PYTHON w.dtype
  EXPECT_EQ(fp::where(c, 1, 2.5).to_vector<double>(), truth<std::vector<double>>("w2.tolist()"));
  EXPECT_EQ(fp::where(c, 1, 2.5).dtype(), fp::DType::F32);  // #PYTHON w2.dtype
  EXPECT_EQ(v.masked_fill(c, 7).to_vector<double>(), truth<std::vector<double>>("m.tolist()"));
  EXPECT_EQ(v.clamp(-1, 1).to_vector<double>(), truth<std::vector<double>>("k.tolist()"));
  EXPECT_EQ(fp::clamp(fp::tensor({int64_t{1}, int64_t{5}, int64_t{9}}), std::nullopt, 6)
                .to_vector<int64_t>(),
            (std::vector<int64_t>{1, 5, 6}));  // #PYTHON k2.tolist()
  EXPECT_EQ(v.where(c, fp::zeros({4})).to_vector<double>(),
            truth<std::vector<double>>("v.where(c, torch.zeros(4)).tolist()"));
}

TEST(Products, MatmulMmBmm) {
  /*
  #|PYTHON
  a = torch.arange(6.).reshape(2, 3)
  b = torch.arange(12.).reshape(3, 4) / 10
  batch = torch.arange(24.).reshape(2, 3, 4)
  */
  const Tensor a = fp::arange(6.0).reshape({2, 3});
  const Tensor b = fp::arange(12.0).reshape({3, 4}) / 10;
  EXPECT_EQ(a.mm(b).to_vector<double>(), truth<std::vector<double>>("a.mm(b).flatten().tolist()"));
  EXPECT_EQ(fp::matmul(a, b).to_vector<double>(), a.matmul(b).to_vector<double>());
  const Tensor batch = cube();
  EXPECT_EQ(
      shape(batch.bmm(batch.transpose(1, 2))),
      (std::vector<int64_t>{2, 3, 3}));  // #PYTHON list(batch.bmm(batch.transpose(1, 2)).shape)
}

TEST(Conversions, ToAlwaysCopies) {
  /*
  #|PYTHON
  m = torch.tensor([[5., 3., 5.], [1., 2., 300.]])
  u = m.to(torch.uint8)
  */
  const Tensor m = fp::tensor({{5.f, 3.f, 5.f}, {1.f, 2.f, 300.f}});
  const Tensor u = m.to(DType::U8);
  EXPECT_EQ(u.dtype(), fp::DType::U8);  // #PYTHON u.dtype
  EXPECT_EQ(u.to_vector<int64_t>(),
            (std::vector<int64_t>{5, 3, 5, 1, 2, 44}));  // #PYTHON u.flatten().tolist()
  const Tensor same = m.to(DType::F32);
  EXPECT_NE(same.raw(), m.raw());
  EXPECT_EQ(m.cpu().device(), fp::Device::cpu());
  EXPECT_EQ(m.to(fp::Device::meta()).device(), fp::Device::meta());
  if (fp::cuda_is_available()) {
    EXPECT_TRUE(m.cuda().device().is_cuda());
    EXPECT_EQ(m.cuda().cpu().to_vector<float>(), m.to_vector<float>());
  }
}

TEST(Comparisons, IsEqualAndAllclose) {
  const Tensor a = fp::tensor({1.f, 2.f});
  EXPECT_TRUE(a.is_equal(fp::tensor({1.f, 2.f})));
  EXPECT_FALSE(a.is_equal(fp::tensor({1.f, 2.5f})));
  EXPECT_TRUE(a.allclose(a + 1e-9));
  EXPECT_FALSE(a.allclose(a + 1e-3));
  EXPECT_TRUE(a.allclose(a + 1e-3, 0, 1e-2));
}

TEST(MethodErrors, PyTorchsMessages) {
  /*
  #|PYTHON
  from truth_helpers import message
  view = message(lambda: x.transpose(0, 1).view(24))
  dim = message(lambda: x.sum(3))
  cat = message(lambda: torch.cat([torch.ones(2, 2), torch.ones(3, 3)]))
  unsqueeze = message(lambda: x.unsqueeze(5))
  */
  const Tensor x = cube();
  const std::string view =
      "view size is not compatible with input tensor's size and stride (at least one dimension "
      "spans across two contiguous subspaces). Use .reshape(...) instead.";  // #PYTHON view
  EXPECT_TORCH_ERROR(view, x.transpose(0, 1).view({24}));
  const std::string dim =
      "Dimension out of range (expected to be in range of [-3, 2], but got 3)";  // #PYTHON dim
  EXPECT_TORCH_ERROR(dim, x.sum({3}));
  const std::string cat =
      "Sizes of tensors must match except in dimension 0. Expected size 2 but got size 3 for "
      "tensor number 1 in the list.";  // #PYTHON cat
  EXPECT_TORCH_ERROR(cat, fp::cat({fp::ones({2, 2}), fp::ones({3, 3})}));
  const std::string unsqueeze =
      "Dimension out of range (expected to be in range of [-4, 3], but got 5)";  // #PYTHON unsqueeze
  EXPECT_TORCH_ERROR(unsqueeze, x.unsqueeze(5));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "At least one of 'min' or 'max' must not be None",
                  x.clamp(std::optional<fp::Scalar>(), std::optional<fp::Scalar>()));
}

TEST(MethodsOnCuda, ClampWithNumbersKeepsTheBoundsOnTheDevice) {
  if (!fp::cuda_is_available()) GTEST_SKIP() << "no CUDA device here";
  // clamp.Tensor refuses bounds on another device, even 0-dim CPU numbers.
  const fp::Tensor x = fp::arange(-3.0, 3.0, 0.5);
  const fp::Tensor clamped = x.to(fp::Device::cuda(0)).clamp(-1, 1.5);
  EXPECT_EQ(clamped.device(), fp::Device::cuda(0));
  EXPECT_TRUE(clamped.to(fp::Device::cpu()).is_equal(x.clamp(-1, 1.5)));
}

}  // namespace
