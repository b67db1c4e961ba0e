// docs/guide/custom_ops.md, compiled and run (tools/check_docs.py keeps the
// page's blocks and these in step): the ops are registered when this program
// starts, as when a shared library holding them is loaded.
#include <gtest/gtest.h>

#include <flash_powder/flash_powder.h>
#include <flash_powder/library/library.h>

#include <vector>

#include "support/expect_error.h"

// Parameters and result follow the schema: Tensor -> fp::TensorView (or
// fp::Tensor, a value), Tensor(a!) -> fp::TensorMutView, int -> int64_t,
// float -> double, bool, str -> std::string_view, int[] -> std::vector<int64_t>,
// Tensor? -> std::optional<fp::TensorView>, Tensor[] -> std::vector<fp::TensorView>,
// (Tensor, Tensor) -> std::tuple<fp::Tensor, fp::Tensor>, () -> void.
fp::Tensor scale(fp::TensorView x, double factor) {
  if (!fp::is_floating_point(x.dtype()))
    throw fp::Error(fp::ErrorCode::BadArgument, "scale: x must be floating point");
  return x * factor;
}

void clip_(fp::TensorMutView x, double limit) {
  x.clamp_(-limit, limit);
}

FP_LIBRARY(myops, m) {           // TORCH_LIBRARY(myops, m)
  m.set_python_module("myops");  // where the fake kernels live (torch 2.13+)
  m.def("scale(Tensor x, float factor) -> Tensor");
  m.def("clip_(Tensor(a!) x, float limit) -> ()");
}
FP_LIBRARY_IMPL(myops, CPU, m) {  // also CUDA, Meta, CompositeExplicitAutograd
  m.impl<scale>("scale");
  m.impl<clip_>("clip_");
}

namespace guide_custom_ops {

TEST(GuideCustomOps, CalledFromCpp) {
  ASSERT_TRUE(fp::library::registration_errors().empty());

  fp::Tensor x = fp::tensor({1.f, -2.f, 3.f});
  fp::Tensor y =
      fp::dispatch<fp::Tensor>("myops::scale", "", x, 2.0);  // torch.ops.myops.scale(x, 2.0)
  fp::dispatch("myops::clip_", "", x, 1.5);                  // writes x

  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{2.f, -4.f, 6.f}));
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{1.f, -1.5f, 1.5f}));
  EXPECT_TORCH_ERROR("scale: x must be floating point",
                     fp::dispatch<fp::Tensor>("myops::scale", "", fp::tensor({1, 2}), 2.0));
  const fp::Tensor frozen = fp::ones({2});
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "", fp::dispatch("myops::clip_", "", frozen, 1.0));
}

}  // namespace guide_custom_ops
