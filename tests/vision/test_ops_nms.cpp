// fp::vision::ops::nms and batched_nms against torchvision's compiled CPU
// kernel: the kept indices exactly, with scores in sixteenths (many ties),
// repeated and empty boxes, from 0 to 3000 boxes, five thresholds, float32
// and float64; batched_nms on both sides of torchvision's switch between
// its strategies (4000 coordinates).
#include <gtest/gtest.h>

#include <string>

#include "flash_powder/vision/vision.h"
#include "support/expect_error.h"
#include "vision/ops_truth.h"

namespace {

namespace ops = fp::vision::ops;
using fp_test::bit_equal;

TEST(VisionNms, KeepsTorchvisionsIndices) {
  const fp::StateDict results = fp_test::ops_truth("kernels");
  for (const int n : {0, 1, 50, 1000, 3000}) {
    for (const std::string dtype : {"f32", "f64"}) {
      const std::string prefix = "nms." + std::to_string(n) + "." + dtype;
      const fp::Tensor& boxes = results.at(prefix + ".boxes");
      const fp::Tensor& scores = results.at(prefix + ".scores");
      for (const auto& [threshold, text] :
           {std::pair{0.0, "0"}, std::pair{0.3, "0.3"}, std::pair{0.5, "0.5"},
            std::pair{0.7, "0.7"}, std::pair{1.0, "1"}}) {
        EXPECT_TRUE(bit_equal(ops::nms(boxes, scores, threshold), results.at(prefix + ".t" + text)))
            << prefix << " threshold " << text;
      }
    }
  }
}

TEST(VisionNms, BatchedKeepsTorchvisionsIndicesWithBothStrategies) {
  const fp::StateDict results = fp_test::ops_truth("kernels");
  for (const int n : {0, 300, 1500}) {
    const std::string prefix = "batched." + std::to_string(n);
    const fp::Tensor& boxes = results.at(prefix + ".boxes");
    const fp::Tensor& scores = results.at(prefix + ".scores");
    const fp::Tensor& idxs = results.at(prefix + ".idxs");
    EXPECT_TRUE(bit_equal(ops::batched_nms(boxes, scores, idxs, 0.5), results.at(prefix + ".keep")))
        << prefix;
    EXPECT_TRUE(bit_equal(ops::batched_nms(boxes, scores, idxs.to(fp::DType::I32), 0.5),
                          results.at(prefix + ".keep_i32")))
        << prefix << " int32";
  }
}

TEST(VisionNms, BadInputIsRefused) {
  const fp::Tensor boxes = fp::zeros({3, 4});
  const fp::Tensor scores = fp::zeros({3});
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "nms: boxes should be a [N, 4] tensor, got shape [3, 5]",
                  ops::nms(fp::zeros({3, 5}), scores, 0.5));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "nms: scores should be a [N] tensor for 3 boxes, got shape [2]",
                  ops::nms(boxes, fp::zeros({2}), 0.5));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "nms: boxes and scores should have the same dtype, got float32 and float64",
                  ops::nms(boxes, scores.to(fp::DType::F64), 0.5));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "nms: boxes should be float32 or float64",
                  ops::nms(boxes.to(fp::DType::I64), scores.to(fp::DType::I64), 0.5));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "batched_nms: idxs should be a [N] tensor for 3 boxes",
                  ops::batched_nms(boxes, scores, fp::zeros({4}, fp::DType::I64), 0.5));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "batched_nms: idxs should hold integer categories, got float32",
                  ops::batched_nms(boxes, scores, scores, 0.5));
  EXPECT_FP_ERROR(
      fp::ErrorCode::Unsupported, "nms: only CPU tensors are implemented",
      ops::nms(fp::zeros({3, 4}, fp::Device::meta()), fp::zeros({3}, fp::Device::meta()), 0.5));
}

}  // namespace
