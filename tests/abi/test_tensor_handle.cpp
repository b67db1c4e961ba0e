// abi::TensorHandle and the C shim calls on tensor handles.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>

#include <cstring>

#include "support/expect_error.h"

namespace {

using fp::abi::TensorHandle;

std::vector<int64_t> as_vector(std::span<const int64_t> values) {
  return {values.begin(), values.end()};
}

TensorHandle empty_2x3() {
  const std::vector<int64_t> sizes{2, 3};
  const std::vector<int64_t> strides{3, 1};
  return fp::abi::empty_strided(sizes, strides, fp::DType::F32, fp::Device::cpu());
}

TEST(TensorHandle, EmptyStridedHasTheAskedMetadata) {
  /*
  #|PYTHON
  t = torch.empty_strided([2, 3], [1, 2], dtype=torch.float64)
  */
  const std::vector<int64_t> sizes{2, 3};
  const std::vector<int64_t> strides{1, 2};
  const TensorHandle t = fp::abi::empty_strided(sizes, strides, fp::DType::F64, fp::Device::cpu());
  EXPECT_EQ(fp::abi::dim(t.get()), 2);  // #PYTHON t.dim()
  EXPECT_EQ(as_vector(fp::abi::sizes(t.get())),
            (std::vector<int64_t>{2, 3}));  // #PYTHON list(t.shape)
  EXPECT_EQ(as_vector(fp::abi::strides(t.get())),
            (std::vector<int64_t>{1, 2}));             // #PYTHON list(t.stride())
  EXPECT_EQ(fp::abi::numel(t.get()), 6);               // #PYTHON t.numel()
  EXPECT_EQ(fp::abi::dtype(t.get()), fp::DType::F64);  // #PYTHON t.dtype
  EXPECT_EQ(fp::abi::is_contiguous(t.get()), false);   // #PYTHON t.is_contiguous()
  EXPECT_EQ(fp::abi::storage_offset(t.get()), 0);      // #PYTHON t.storage_offset()
  EXPECT_EQ(fp::abi::device(t.get()), fp::Device::cpu());
  EXPECT_EQ(fp::abi::layout(t.get()), fp::Layout::Strided);
  EXPECT_TRUE(fp::abi::is_defined(t.get()));
}

TEST(TensorHandle, MoveTransfersOwnershipAndResetFrees) {
  TensorHandle a = empty_2x3();
  const fp::abi::RawTensor raw = a.get();
  TensorHandle b = std::move(a);
  EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move): a moved-from handle is defined: empty
  EXPECT_EQ(b.get(), raw);
  TensorHandle c;
  c = std::move(b);
  EXPECT_EQ(c.get(), raw);
  c.reset();
  EXPECT_FALSE(c);
  c.reset();  // resetting an empty handle does nothing
}

TEST(TensorHandle, ReleaseHandsOwnershipToTheCaller) {
  TensorHandle a = empty_2x3();
  const fp::abi::RawTensor raw = a.release();
  EXPECT_FALSE(a);
  TensorHandle again(raw);  // take it back so it is freed
  EXPECT_EQ(fp::abi::numel(again.get()), 6);
}

TEST(TensorHandle, ShareSeesTheSameData) {
  TensorHandle a = empty_2x3();
  TensorHandle b = a.share();
  EXPECT_NE(a.get(), b.get());
  static_cast<float*>(fp::abi::mutable_data_ptr(a.get()))[0] = 42.f;
  EXPECT_EQ(static_cast<const float*>(fp::abi::const_data_ptr(b.get()))[0], 42.f);
}

TEST(TensorHandle, FromBlobViewsForeignMemoryAndRunsTheDeleter) {
  static int deleted = 0;
  std::vector<float> memory{1, 2, 3, 4, 5, 6};
  const std::vector<int64_t> sizes{3};
  const std::vector<int64_t> strides{2};
  {
    const TensorHandle t = fp::abi::from_blob(
        memory.data(), sizes, strides, 1, fp::DType::F32, fp::Device::cpu(),
        [](void*, void* context) { ++*static_cast<int*>(context); }, &deleted);
    EXPECT_EQ(fp::abi::storage_offset(t.get()), 1);
    EXPECT_EQ(static_cast<const float*>(fp::abi::const_data_ptr(t.get()))[0], 2.f);
    EXPECT_EQ(deleted, 0);
  }
  EXPECT_EQ(deleted, 1);
}

TEST(TensorHandle, CopyConvertsAndBroadcasts) {
  TensorHandle dst = empty_2x3();
  const fp::Tensor src = fp::tensor({int64_t{7}, int64_t{8}, int64_t{9}});
  fp::abi::copy_(dst.get(), src.raw());
  const auto* values = static_cast<const float*>(fp::abi::const_data_ptr(dst.get()));
  EXPECT_EQ(std::vector<float>(values, values + 6), (std::vector<float>{7, 8, 9, 7, 8, 9}));
}

TEST(TensorHandleErrors, NullHandles) {
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument, "dim: the tensor handle is null",
                        fp::abi::dim(nullptr));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument, "sizes: the tensor handle is null",
                        fp::abi::sizes(nullptr));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument, "strides: the tensor handle is null",
                        fp::abi::strides(nullptr));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument, "numel: the tensor handle is null",
                        fp::abi::numel(nullptr));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument, "dtype: the tensor handle is null",
                        fp::abi::dtype(nullptr));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument, "device: the tensor handle is null",
                        fp::abi::device(nullptr));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument, "layout: the tensor handle is null",
                        fp::abi::layout(nullptr));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument, "storage_offset: the tensor handle is null",
                        fp::abi::storage_offset(nullptr));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument, "is_contiguous: the tensor handle is null",
                        fp::abi::is_contiguous(nullptr));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument, "is_defined: the tensor handle is null",
                        fp::abi::is_defined(nullptr));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument, "const_data_ptr: the tensor handle is null",
                        fp::abi::const_data_ptr(nullptr));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument, "mutable_data_ptr: the tensor handle is null",
                        fp::abi::mutable_data_ptr(nullptr));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument, "share: the tensor handle is null",
                        fp::abi::share(nullptr));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument, "share: the tensor handle is null",
                        TensorHandle().share());
  const TensorHandle t = empty_2x3();
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument, "copy_: the tensor handle is null",
                        fp::abi::copy_(t.get(), nullptr));
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument, "copy_: the tensor handle is null",
                        fp::abi::copy_(nullptr, t.get()));
}

TEST(TensorHandleErrors, MismatchedSizesAndStrides) {
  const std::vector<int64_t> sizes{2, 3};
  const std::vector<int64_t> strides{1};
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument, "empty_strided: 2 sizes but 1 strides",
                        fp::abi::empty_strided(sizes, strides, fp::DType::F32, fp::Device::cpu()));
  float value = 0;
  EXPECT_FP_ERROR_EXACT(fp::ErrorCode::BadArgument, "from_blob: 2 sizes but 1 strides",
                        fp::abi::from_blob(&value, sizes, strides, 0, fp::DType::F32,
                                           fp::Device::cpu(), nullptr, nullptr));
}

TEST(TensorHandleErrors, LibtorchRejectionsBecomeErrors) {
  /*
  #|PYTHON
  try:
      torch.empty_strided([-1], [1])
  except RuntimeError as e:
      negative = str(e)
  try:
      torch.zeros(2, 3).copy_(torch.zeros(2))
  except RuntimeError as e:
      broadcast = str(e)
  */
  const std::vector<int64_t> bad_sizes{-1};
  const std::vector<int64_t> one{1};
  const std::string negative =
      "Trying to create tensor with negative dimension -1: [-1]";  // #PYTHON negative
  EXPECT_TORCH_ERROR_EXACT(
      "empty_strided", negative,
      fp::abi::empty_strided(bad_sizes, one, fp::DType::F32, fp::Device::cpu()));
  const std::string broadcast =
      "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension "
      "1";  // #PYTHON broadcast
  const TensorHandle dst = empty_2x3();
  const fp::Tensor src = fp::tensor({1.f, 2.f});
  EXPECT_TORCH_ERROR_EXACT("copy_", broadcast, fp::abi::copy_(dst.get(), src.raw()));
}

}  // namespace
