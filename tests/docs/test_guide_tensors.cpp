// docs/guide/tensors.md, compiled and run (tools/check_docs.py keeps the
// page's blocks and these in step).
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include <iostream>
#include <span>
#include <string>
#include <vector>

#include "support/expect_error.h"
#include "support/truth.h"

namespace guide_tensors {

using fp_test::truth;

/*
#|PYTHON_GLOBAL
from truth_helpers import g, values
*/

TEST(GuideTensors, Making) {
  fp::Tensor a =
      fp::tensor({{1.f, 2.f}, {3.f, 4.f}});  // float32 [2, 2]: torch.tensor([[1., 2.], [3., 4.]])
  fp::Tensor b = fp::tensor(int64_t{5});     // int64, 0-dim: torch.tensor(5)
  fp::Tensor c =
      fp::tensor({1, 2, 3}, fp::DType::U8);          // torch.tensor([1, 2, 3], dtype=torch.uint8)
  fp::Tensor z = fp::zeros({2, 3}, fp::DType::I64);  // torch.zeros(2, 3, dtype=torch.int64)
  fp::Tensor r = fp::arange(0.f, 1.f, 0.25f);        // torch.arange(0., 1., 0.25)
  fp::Generator generator(42);                       // torch.Generator().manual_seed(42)
  fp::Tensor n = fp::randn({2, 3}, generator);       // the same numbers as Python's

  /*
  #|PYTHON
  a = torch.tensor([[1., 2.], [3., 4.]])
  b = torch.tensor(5)
  c = torch.tensor([1, 2, 3], dtype=torch.uint8)
  z = torch.zeros(2, 3, dtype=torch.int64)
  r = torch.arange(0., 1., 0.25)
  n = torch.randn(2, 3, generator=torch.Generator().manual_seed(42))
  */
  EXPECT_EQ(a.dtype(), fp::DType::F32);                                // #PYTHON a.dtype
  EXPECT_EQ(b.dtype(), fp::DType::I64);                                // #PYTHON b.dtype
  EXPECT_EQ(b.dim(), 0);                                               // #PYTHON b.dim()
  EXPECT_EQ(c.to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 3}));  // #PYTHON values(c)
  EXPECT_EQ(c.dtype(), fp::DType::U8);                                 // #PYTHON c.dtype
  EXPECT_EQ(z.dtype(), fp::DType::I64);                                // #PYTHON z.dtype
  EXPECT_EQ(r.to_vector<float>(), truth<std::vector<float>>("values(r)"));
  EXPECT_EQ(n.to_vector<float>(), truth<std::vector<float>>("values(n)"));
}

TEST(GuideTensors, FromBlob) {
  std::vector<float> pixels(2 * 3, 0.5f);
  fp::TensorMutView over = fp::from_blob(std::span(pixels), {2, 3});  // no copy
  over.mul_(2);                                                       // pixels are 1.0 now
  fp::Tensor owned = over.to_owned();                                 // a copy that outlives pixels

  EXPECT_EQ(pixels, std::vector<float>(6, 1.f));
  pixels[0] = 7.f;
  EXPECT_EQ(owned.at<float>({0, 0}), 1.f);
}

TEST(GuideTensors, Reading) {
  fp::Tensor t = fp::arange(6.f).reshape({2, 3});
  std::vector<int64_t> shape(t.sizes().begin(), t.sizes().end());  // {2, 3}: t.shape
  fp::DType dtype = t.dtype();                                     // fp::DType::F32
  float first = t.data<float>()[0];     // std::span<const float>: CPU, contiguous, float32
  float last = t.at<float>({-1, -1});   // t[-1, -1], bounds checked
  float total = t.sum().item<float>();  // t.sum().item()
  std::vector<int64_t> as_ints =
      t.to_vector<int64_t>();  // any layout, converted: t.flatten().tolist()

  /*
  #|PYTHON
  t = torch.arange(6.).reshape(2, 3)
  */
  EXPECT_EQ(shape, (std::vector<int64_t>{2, 3}));  // #PYTHON list(t.shape)
  EXPECT_EQ(dtype, fp::DType::F32);                // #PYTHON t.dtype
  EXPECT_EQ(first, 0.0);                           // #PYTHON t[0, 0].item()
  EXPECT_EQ(last, 5.0);                            // #PYTHON t[-1, -1].item()
  EXPECT_EQ(total, 15.0);                          // #PYTHON t.sum().item()
  EXPECT_EQ(as_ints, (std::vector<int64_t>{0, 1, 2, 3, 4,
                                           5}));  // #PYTHON t.to(torch.int64).flatten().tolist()
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "", (void)t.data<double>());
}

TEST(GuideTensors, ViewsAndCopies) {
  fp::Tensor d = fp::arange(1.f, 17.f).reshape({4, 4});
  fp::TensorView top = d.i(fp::slice(0, 2), fp::all);                 // d[0:2, :]
  fp::TensorView last = d.i(-1);                                      // d[-1]
  fp::TensorView odd = d.i(fp::all, fp::slice(1, fp::end, 2));        // d[:, 1::2]
  fp::TensorView turned = d.transpose(0, 1);                          // d.transpose(0, 1), a view
  fp::Tensor picked = d.index(fp::tensor({int64_t{3}, int64_t{0}}));  // d[[3, 0]], a copy
  fp::Tensor big = d.index(d > 10.f);                                 // d[d > 10], a copy
  fp::Tensor flat = d.reshape({16});                                  // never a view of d

  /*
  #|PYTHON
  d = torch.arange(1., 17.).reshape(4, 4)
  */
  EXPECT_EQ(top.to_vector<float>(), (std::vector<float>{1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0,
                                                        8.0}));  // #PYTHON values(d[0:2, :])
  EXPECT_EQ(last.to_vector<float>(),
            (std::vector<float>{13.0, 14.0, 15.0, 16.0}));  // #PYTHON values(d[-1])
  EXPECT_EQ(odd.to_vector<float>(), (std::vector<float>{2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0,
                                                        16.0}));  // #PYTHON values(d[:, 1::2])
  EXPECT_EQ(turned.to_vector<float>(),
            (std::vector<float>{1.0, 5.0, 9.0, 13.0, 2.0, 6.0, 10.0, 14.0, 3.0, 7.0, 11.0, 15.0,
                                4.0, 8.0, 12.0, 16.0}));  // #PYTHON values(d.transpose(0, 1))
  EXPECT_EQ(picked.to_vector<float>(), (std::vector<float>{13.0, 14.0, 15.0, 16.0, 1.0, 2.0, 3.0,
                                                           4.0}));  // #PYTHON values(d[[3, 0]])
  EXPECT_EQ(big.to_vector<float>(),
            (std::vector<float>{11.0, 12.0, 13.0, 14.0, 15.0, 16.0}));  // #PYTHON values(d[d > 10])
  EXPECT_EQ(flat.dim(), 1);
}

TEST(GuideTensors, Writing) {
  fp::Tensor d = fp::zeros({3, 4});
  {
    fp::TensorMutView row = d.i_mut(1);         // d[1], writable
    row.fill_(1);                               // d[1] = 1
    row.at_mut<float>({0}) = 5.f;               // d[1, 0] = 5
  }                                             // one writer at a time: it ends here
  d.i_mut(fp::all, -1).copy_(fp::arange(3.f));  // d[:, -1] = torch.arange(3.)
  d += 1;                                       // in place: Tensor and TensorMutView only
  d.data_mut<float>()[0] = -1.f;                // std::span<float> over the elements

  /*
  #|PYTHON
  d = torch.zeros(3, 4)
  d[1] = 1
  d[1, 0] = 5
  d[:, -1] = torch.arange(3.)
  d += 1
  d.view(-1)[0] = -1
  */
  EXPECT_EQ(d.to_vector<float>(), (std::vector<float>{-1.0, 1.0, 1.0, 1.0, 6.0, 2.0, 2.0, 2.0, 1.0,
                                                      1.0, 1.0, 3.0}));  // #PYTHON values(d)
}

#if FP_BORROW_CHECK
TEST(GuideTensors, BorrowCheck) {
  std::string what;
  try {
    fp::Tensor w = fp::ones({2, 2});
    fp::TensorView v = w.i(0);
    w.fill_(2);  // throws fp::BorrowError in a debug build: v would see the change
  } catch (const fp::BorrowError& error) {
    what = error.what();
  }
  EXPECT_NE(what.find("fill_"), std::string::npos) << what;
}
#endif

TEST(GuideTensors, Printing) {
  const fp::PrintOptions before = fp::get_printoptions();
  testing::internal::CaptureStdout();
  std::cout << fp::tensor({{1.5f, 2.f}, {3.f, 4.f}}) << '\n';
  // tensor([[1.5000, 2.0000],
  //         [3.0000, 4.0000]])
  fp::PrintOptions options = fp::get_printoptions();
  options.precision = 2;
  fp::set_printoptions(options);                          // torch.set_printoptions(precision=2)
  std::string text = fp::to_string(fp::tensor(1.f / 3));  // "tensor(0.33)"
  const std::string printed = testing::internal::GetCapturedStdout();
  fp::set_printoptions(before);

  /*
  #|PYTHON
  shown = repr(torch.tensor([[1.5, 2.], [3., 4.]])) + "\n"
  torch.set_printoptions(precision=2)
  text = repr(torch.tensor(1 / 3))
  torch.set_printoptions(profile="default")
  */
  EXPECT_EQ(printed, "tensor([[1.5000, 2.0000],\n        [3.0000, 4.0000]])\n");  // #PYTHON shown
  EXPECT_EQ(text, "tensor(0.33)");                                                // #PYTHON text
}

TEST(GuideTensors, DtypesAndDevices) {
  fp::Tensor x = fp::rand({2, 2});
  fp::Tensor half = x.to(fp::DType::F16);  // x.to(torch.float16): always a copy
  if (fp::cuda_is_available()) {
    fp::Tensor on_gpu = x.to(fp::Device::cuda(0));  // x.to("cuda:0")
    fp::Tensor back = on_gpu.cpu();
  }
  if (fp::cuda_is_available()) {
    EXPECT_TRUE(x.to(fp::Device::cuda(0)).cpu().is_equal(x));
  }
  EXPECT_EQ(half.dtype(), fp::DType::F16);
  EXPECT_TRUE(half.to(fp::DType::F32).allclose(x, 1e-3, 1e-3));
}

}  // namespace guide_tensors
