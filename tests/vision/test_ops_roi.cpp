// fp::vision::ops' RoI ops against torchvision's compiled CPU kernels, bit
// for bit: 40 regions (repeated, empty, inverted, partly outside the map)
// over two images, float16 (roi_align, ps_roi_align), float32 and float64, several output sizes, spatial
// scales, sampling ratios and both alignments; and the list-of-boxes form.
#include <gtest/gtest.h>

#include <string>

#include "flash_powder/vision/vision.h"
#include "support/expect_error.h"
#include "vision/ops_truth.h"

namespace {

namespace ops = fp::vision::ops;
using fp_test::bit_equal;

struct Size {
  std::int64_t h, w;
  std::string text() const { return std::to_string(h) + "x" + std::to_string(w); }
};
const Size kRoiSizes[] = {{7, 7}, {3, 5}, {1, 1}};
const Size kPsSizes[] = {{3, 3}, {2, 3}, {1, 1}};
const std::pair<double, const char*> kScales[] = {{1.0, "1"}, {0.5, "0.5"}};
const int kRatios[] = {-1, 0, 2};

class VisionRoi : public ::testing::TestWithParam<std::string> {
 protected:
  const fp::Tensor& torchvision(const std::string& key) const { return results_.at(key); }
  const fp::StateDict results_ = fp_test::ops_truth("kernels");
  const fp::Tensor& input() const { return torchvision("roi." + GetParam() + ".input"); }
  const fp::Tensor& rois() const { return torchvision("roi." + GetParam() + ".rois"); }
};

TEST_P(VisionRoi, RoiAlignEqualsTorchvision) {
  for (const auto& scale_case : kScales) {
    const double scale =
        scale_case.first;  // not a structured binding: lambdas capture it (clang 14)
    const std::string scale_text = scale_case.second;
    for (const Size size : kRoiSizes) {
      for (const int ratio : kRatios) {
        for (const bool aligned : {false, true}) {
          const std::string key = "roi_align." + GetParam() + "." + size.text() + ".s" +
                                  scale_text + ".r" + std::to_string(ratio) + ".a" +
                                  (aligned ? "1" : "0");
          const fp::Tensor out =
              ops::roi_align(input(), rois(), {size.h, size.w},
                             {.spatial_scale = scale, .sampling_ratio = ratio, .aligned = aligned});
          EXPECT_TRUE(bit_equal(out, torchvision(key))) << key;
        }
      }
    }
  }
}

TEST_P(VisionRoi, RoiPoolEqualsTorchvision) {
  if (GetParam() == "f16") {  // as torchvision's CPU kernel, float32 and float64 only
    EXPECT_FP_ERROR(fp::ErrorCode::Unsupported, "roi_pool: float16 is not implemented",
                    ops::roi_pool(input(), rois(), 7));
    return;
  }
  for (const auto& scale_case : kScales) {
    const double scale =
        scale_case.first;  // not a structured binding: lambdas capture it (clang 14)
    const std::string scale_text = scale_case.second;
    for (const Size size : kRoiSizes) {
      const std::string key = "roi_pool." + GetParam() + "." + size.text() + ".s" + scale_text;
      EXPECT_TRUE(
          bit_equal(ops::roi_pool(input(), rois(), {size.h, size.w}, scale), torchvision(key)))
          << key;
    }
  }
}

TEST_P(VisionRoi, PsRoiAlignAndPoolEqualTorchvision) {
  for (const auto& scale_case : kScales) {
    const double scale =
        scale_case.first;  // not a structured binding: lambdas capture it (clang 14)
    const std::string scale_text = scale_case.second;
    for (const Size size : kPsSizes) {
      for (const int ratio : kRatios) {
        const std::string key = "ps_roi_align." + GetParam() + "." + size.text() + ".s" +
                                scale_text + ".r" + std::to_string(ratio);
        EXPECT_TRUE(bit_equal(ops::ps_roi_align(input(), rois(), {size.h, size.w}, scale, ratio),
                              torchvision(key)))
            << key;
      }
      if (GetParam() == "f16") {
        EXPECT_FP_ERROR(fp::ErrorCode::Unsupported, "ps_roi_pool: float16 is not implemented",
                        ops::ps_roi_pool(input(), rois(), {size.h, size.w}, scale));
        continue;
      }
      const std::string key = "ps_roi_pool." + GetParam() + "." + size.text() + ".s" + scale_text;
      EXPECT_TRUE(
          bit_equal(ops::ps_roi_pool(input(), rois(), {size.h, size.w}, scale), torchvision(key)))
          << key;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Torchvision, VisionRoi, ::testing::Values("f16", "f32", "f64"));

TEST(VisionRoi, ListsOfBoxesEqualTorchvision) {
  const fp::StateDict results = fp_test::ops_truth("kernels");
  const fp::Tensor input = results.at("roi.f64.input").to(fp::DType::F32);
  const std::vector<fp::TensorView> boxes = {results.at("list.boxes0"), results.at("list.boxes1")};
  EXPECT_TRUE(bit_equal(
      ops::roi_align(input, boxes, 7, {.spatial_scale = 0.5, .sampling_ratio = 2, .aligned = true}),
      results.at("list.roi_align")));
  EXPECT_TRUE(bit_equal(ops::roi_pool(input, boxes, 7, 0.5), results.at("list.roi_pool")));
  EXPECT_TRUE(
      bit_equal(ops::ps_roi_align(input, boxes, 3, 0.5, 2), results.at("list.ps_roi_align")));
  EXPECT_TRUE(bit_equal(ops::ps_roi_pool(input, boxes, 3, 0.5), results.at("list.ps_roi_pool")));
}

TEST(VisionRoi, EmptyRegionsGiveEmptyOutputs) {
  const fp::Tensor input = fp::ones({1, 4, 5, 5});
  const fp::Tensor none = fp::zeros({0, 5});
  EXPECT_EQ(fp_test::shape(ops::roi_align(input, none, 2)), "[0, 4, 2, 2]");
  EXPECT_EQ(fp_test::shape(ops::roi_pool(input, none, 2)), "[0, 4, 2, 2]");
  EXPECT_EQ(fp_test::shape(ops::ps_roi_align(input, none, 2)), "[0, 1, 2, 2]");
  EXPECT_EQ(fp_test::shape(ops::ps_roi_pool(input, none, 2)), "[0, 1, 2, 2]");
}

TEST(VisionRoi, BadInputIsRefused) {
  const fp::Tensor input = fp::ones({2, 4, 5, 5});
  const fp::Tensor rois = fp::tensor({{1.f, 0.f, 0.f, 3.f, 3.f}});
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "roi_align: input should be a [N, C, H, W] tensor, got shape [4, 5, 5]",
                  ops::roi_align(fp::ones({4, 5, 5}), rois, 2));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "roi_pool: the boxes tensor shape is not correct as [K, 5], got [1, 4]",
                  ops::roi_pool(input, fp::zeros({1, 4}), 2));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "roi_align: input and rois should have the same dtype, got float32 and float64",
                  ops::roi_align(input, rois.to(fp::DType::F64), 2));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "roi_align: box 0 has batch index 2",
                  ops::roi_align(input, fp::tensor({{2.f, 0.f, 0.f, 3.f, 3.f}}), 2));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "ps_roi_pool: box 0 has batch index -1",
                  ops::ps_roi_pool(input, fp::tensor({{-1.f, 0.f, 0.f, 3.f, 3.f}}), 2));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument, "roi_pool: the coordinates of box 0 should be finite",
      ops::roi_pool(input,
                    fp::tensor({{0.f, 0.f, 0.f, std::numeric_limits<float>::infinity(), 3.f}}), 2));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "roi_align: the output size should not be negative",
                  ops::roi_align(input, rois, {-1, 2}));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument,
      "ps_roi_align: input channels (4) must be a multiple of pooling height * pooling width",
      ops::ps_roi_align(input, rois, 3));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "ps_roi_pool: input channels (4) must be a multiple",
                  ops::ps_roi_pool(input, rois, {0, 2}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "roi_align: input should be float16, float32 or float64, got int64",
                  ops::roi_align(input.to(fp::DType::I64), rois.to(fp::DType::I64), 2));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "roi_pool: a box coordinate is too large",
                  ops::roi_pool(input, fp::tensor({{0.f, 0.f, 0.f, 3e30f, 3.f}}), 2));
  EXPECT_FP_ERROR(
      fp::ErrorCode::BadArgument, "roi_align: box 0 is inverted along one side only",
      ops::roi_align(input, fp::tensor({{0.f, 3.f, 0.f, 0.f, 3.f}}), 2, {.aligned = true}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "convert_boxes_to_roi_format: no boxes were given",
                  ops::roi_align(input, std::vector<fp::TensorView>{}, 2));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "convert_boxes_to_roi_format: the shape of the tensor in the boxes list",
                  ops::roi_pool(input, std::vector<fp::TensorView>{rois}, 2));
  EXPECT_FP_ERROR(fp::ErrorCode::Unsupported, "roi_align: only CPU tensors are implemented",
                  ops::roi_align(fp::ones({2, 4, 5, 5}, fp::Device::meta()),
                                 fp::zeros({1, 5}, fp::Device::meta()), 2));
}

}  // namespace
