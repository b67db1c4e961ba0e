// fp::vision::ops' box functions against torchvision's, bit for bit: boxes
// on a grid of quarters (ties, repeats, empty and inverted boxes) in
// float16, float32, float64 and int64, none, and batched; masks_to_boxes.
#include <gtest/gtest.h>

#include <string>

#include "flash_powder/vision/vision.h"
#include "support/expect_error.h"
#include "vision/ops_truth.h"

namespace {

namespace ops = fp::vision::ops;
using fp_test::bit_equal;

const char* const kFormats[] = {"xyxy", "xywh", "cxcywh"};

class VisionBoxes : public ::testing::TestWithParam<std::string> {
 protected:
  const fp::Tensor& torchvision(const std::string& key) const {
    return results_.at(GetParam() + "." + key);
  }
  const fp::StateDict results_ = fp_test::ops_truth("boxes");
};

TEST_P(VisionBoxes, AreaIouAndConvertEqualTorchvision) {
  const fp::Tensor& a = torchvision("boxes1");
  const fp::Tensor& b = torchvision("boxes2");
  for (const std::string fmt : kFormats) {
    EXPECT_TRUE(bit_equal(ops::box_area(a, fmt), torchvision("box_area." + fmt))) << fmt;
    EXPECT_TRUE(bit_equal(ops::box_iou(a, b, fmt), torchvision("box_iou." + fmt))) << fmt;
    for (const std::string out_fmt : kFormats) {
      EXPECT_TRUE(bit_equal(ops::box_convert(a, fmt, out_fmt),
                            torchvision("box_convert." + fmt + "." + out_fmt)))
          << fmt << " -> " << out_fmt;
    }
  }
}

TEST_P(VisionBoxes, GeneralizedDistanceCompleteIouEqualTorchvision) {
  const fp::Tensor& a = torchvision("boxes1");
  const fp::Tensor& b = torchvision("boxes2");
  EXPECT_TRUE(bit_equal(ops::generalized_box_iou(a, b), torchvision("generalized_box_iou")));
  EXPECT_TRUE(bit_equal(ops::distance_box_iou(a, b), torchvision("distance_box_iou")));
  EXPECT_TRUE(bit_equal(ops::distance_box_iou(a, b, 0.01), torchvision("distance_box_iou.eps")));
  EXPECT_TRUE(bit_equal(ops::complete_box_iou(a, b), torchvision("complete_box_iou")));
  EXPECT_TRUE(bit_equal(ops::complete_box_iou(a, b, 0.01), torchvision("complete_box_iou.eps")));
}

TEST_P(VisionBoxes, ClipAndRemoveSmallEqualTorchvision) {
  const fp::Tensor& a = torchvision("boxes1");
  EXPECT_TRUE(bit_equal(ops::clip_boxes_to_image(a, 7, 11), torchvision("clip_boxes_to_image")));
  EXPECT_TRUE(bit_equal(ops::remove_small_boxes(a, 1.5), torchvision("remove_small_boxes")));
}

INSTANTIATE_TEST_SUITE_P(Torchvision, VisionBoxes,
                         ::testing::Values("f16", "f32", "f64", "i64", "empty", "batched"));

TEST(VisionBoxes, MasksToBoxesEqualsTorchvision) {
  const fp::StateDict results = fp_test::ops_truth("boxes");
  for (const std::string kind : {"u8", "bool", "f32", "empty"}) {
    EXPECT_TRUE(bit_equal(ops::masks_to_boxes(results.at("masks." + kind)),
                          results.at("masks_to_boxes." + kind)))
        << kind;
  }
}

TEST(VisionBoxes, BadInputIsRefused) {
  const fp::Tensor boxes = fp::zeros({3, 4});
  const fp::Tensor five = fp::zeros({3, 5});
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "box_area: boxes should be a [..., 4] tensor, got shape [3, 5]",
                  ops::box_area(five));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "box_iou: boxes2 should be a [..., N, 4] tensor, got shape [4]",
                  ops::box_iou(boxes, fp::zeros({4})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "generalized_box_iou: boxes1 should be",
                  ops::generalized_box_iou(five, boxes));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "distance_box_iou: boxes2 should be",
                  ops::distance_box_iou(boxes, five));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "complete_box_iou: boxes1 should hold real numbers, got bool",
                  ops::complete_box_iou(boxes.to(fp::DType::Bool), boxes));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "box_convert: unsupported box format 'xyz'",
                  ops::box_convert(boxes, "xyz", "xyxy"));
  EXPECT_FP_ERROR(fp::ErrorCode::Unsupported,
                  "box_convert: rotated boxes ('xywhr') are not implemented",
                  ops::box_convert(boxes, "xyxy", "xywhr"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "box_iou: unsupported box format 'XYXY'",
                  ops::box_iou(boxes, boxes, "XYXY"));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "clip_boxes_to_image: the image size must not be negative",
                  ops::clip_boxes_to_image(boxes, -1, 5));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "clip_boxes_to_image: boxes should be",
                  ops::clip_boxes_to_image(five, 4, 5));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "remove_small_boxes: boxes should be a [..., N, 4] tensor",
                  ops::remove_small_boxes(fp::zeros({4}), 1.0));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "masks_to_boxes: masks should be a [N, H, W] tensor, got shape [4, 4]",
                  ops::masks_to_boxes(fp::zeros({4, 4})));
}

}  // namespace
