// The tensor examples of the document flash_powder grew from, written with
// this library's names, giving the values that document (and PyTorch) gives.
#include <gtest/gtest.h>

#include <flash_powder/aten/aten.h>
#include <flash_powder/flash_powder.h>

#include "support/shapes.h"
#include "support/truth.h"

namespace {

using fp_test::truth;

using fp_test::shape;
using fp_test::strides;

TEST(SeedExamples, Conversion) {
  // Convert a scalar like so:
  const fp::Tensor d = fp::tensor(int64_t{5});
  EXPECT_EQ(d.dim(), 0);
  EXPECT_EQ(d.at<int64_t>({}), 5);
  // Or create a 2D Tensor with some floats:
  const fp::Tensor m = fp::tensor({{5.0f, 3.0f, 5.0f}, {1.0f, 2.0f, 0.0f}});
  EXPECT_EQ(shape(m), (std::vector<int64_t>{2, 3}));
  // Change it or move it to a device:
  const fp::Tensor as_u8 = m.to(fp::DType::U8);
  EXPECT_EQ(as_u8.dtype(), fp::DType::U8);
  if (fp::cuda_is_available()) {
    const fp::Tensor u8_on_gpu = as_u8.to(fp::Device::cuda());
    EXPECT_TRUE(u8_on_gpu.device().is_cuda());
  }
}

TEST(SeedExamples, Factories) {
  const fp::Tensor a = fp::empty({5, 5});  // defaults to cpu, f32
  EXPECT_EQ(a.dtype(), fp::DType::F32);
  EXPECT_EQ(a.device(), fp::Device::cpu());
  const fp::Tensor t = fp::randn({3, 3}, fp::Device::cpu());  // a device to create it on
  EXPECT_EQ(shape(t), (std::vector<int64_t>{3, 3}));
  const fp::Tensor e = fp::zeros({6, 6}, fp::DType::U8);  // or a type
  EXPECT_EQ(e.dtype(), fp::DType::U8);
}

TEST(SeedExamples, Multiplication) {
  /*
  #|PYTHON
  r = torch.tensor([0.2015, -0.4255, 2.6087]) * torch.tensor(100.0)
  */
  const fp::Tensor t = fp::tensor({0.2015f, -0.4255f, 2.6087f});
  const fp::Tensor factor = fp::tensor(100.0f);
  const fp::Tensor r = t.mul(factor);
  EXPECT_EQ(shape(r), (std::vector<int64_t>{3}));
  EXPECT_EQ(r.to_vector<float>(), truth<std::vector<float>>("r.tolist()"));
}

TEST(SeedExamples, Indexing) {
  const fp::Tensor d = fp::tensor({{1.0f, 2.0f, 3.0f, 4.0f},
                                   {5.0f, 6.0f, 7.0f, 8.0f},
                                   {9.0f, 10.0f, 11.0f, 12.0f},
                                   {13.0f, 14.0f, 15.0f, 16.0f}});
  /*
  #|PYTHON
  d = torch.arange(1., 17.).reshape(4, 4)
  */
  const fp::TensorView z = d.i(fp::slice(1, 3), fp::slice(0, 1));  // z = d[1:3, 0:1]
  EXPECT_EQ(shape(z), (std::vector<int64_t>{2, 1}));  // #PYTHON list(d[1:3, 0:1].shape)
  const fp::TensorView w = d.i(fp::slice(-3, 3), fp::slice(-3, 3));  // w = d[-3:3, -3:3]
  EXPECT_EQ(shape(w), (std::vector<int64_t>{2, 2}));  // #PYTHON list(d[-3:3, -3:3].shape)
}

TEST(SeedExamples, Convolution) {
  /*
  #|PYTHON
  d = torch.tensor(list(range(1, 17)), dtype=torch.float).reshape([1, 4, 4])
  w = torch.tensor([[[1.0, 2.0], [3.0, 4.0]]]).unsqueeze(0)
  r = torch.nn.functional.conv2d(d, w)
  */
  const fp::Tensor d = fp::arange(1, 17, 1, fp::DType::F32).reshape({1, 4, 4});
  EXPECT_EQ(shape(d), (std::vector<int64_t>{1, 4, 4}));  // #PYTHON list(d.shape)
  const fp::Tensor w = fp::tensor({{{1.0f, 2.0f}, {3.0f, 4.0f}}}).unsqueeze(0).to_owned();
  const fp::Tensor r = fp::aten::conv2d(d, w);
  EXPECT_EQ(shape(r), (std::vector<int64_t>{1, 3, 3}));  // #PYTHON list(r.shape)
  EXPECT_EQ(r.to_vector<float>(), truth<std::vector<float>>("r.flatten().tolist()"));
}

}  // namespace
