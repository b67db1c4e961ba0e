// fp::vision::masks against scikit-image (measure.label, regionprops,
// morphology.remove_small_objects and the binary morphology with its
// footprints) and PyTorch (the class masks), on seeded random masks that
// both sides draw from the same generator and on a real one (scikit-image's
// coins photo, thresholded).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <flash_powder/aten/aten.h>
#include <flash_powder/flash_powder.h>
#include <flash_powder/vision/vision.h>

#include "support/expect_error.h"
#include "support/truth.h"

namespace {

namespace masks = fp::vision::masks;
using fp_test::truth;

/*
#|PYTHON_GLOBAL
import numpy as np
import skimage
from skimage import measure, morphology

def random_mask(seed, height, width, density):
    return torch.rand(height, width, generator=torch.Generator().manual_seed(seed)) < density

def coins_mask():
    return torch.from_numpy(skimage.data.coins()[::3, ::3] > 110)

def flat(array):
    return np.asarray(array).astype(np.int64).flatten().tolist()

# The masks of mask_cases(), in its order.
MASKS = [random_mask(1, 40, 50, 0.5), random_mask(2, 31, 17, 0.6), random_mask(3, 1, 60, 0.5),
         coins_mask()]
*/

/// Python's random_mask: the same draws, from the same generator.
fp::Tensor random_mask(std::uint64_t seed, std::int64_t height, std::int64_t width,
                       double density) {
  fp::Generator generator(seed);
  return fp::rand({height, width}, generator).lt(density);
}

/// Python's MASKS: three random masks and the coins photo's, whose pixels
/// and shape the test passes from Python.
std::vector<fp::Tensor> mask_cases(const std::vector<std::int64_t>& coins,
                                   const std::vector<std::int64_t>& coins_shape) {
  return {random_mask(1, 40, 50, 0.5), random_mask(2, 31, 17, 0.6), random_mask(3, 1, 60, 0.5),
          fp::tensor(coins).reshape(coins_shape).to(fp::DType::Bool)};
}

/// The values of a bool or integer tensor, as int64.
std::vector<std::int64_t> flat(fp::TensorView tensor) {
  return tensor.to(fp::DType::I64).to_vector<std::int64_t>();
}

/// The connectivities each test runs, in the order of Python's `(1, 2)`.
constexpr masks::Connectivity kConnectivities[] = {masks::Connectivity::Edges,
                                                   masks::Connectivity::EdgesAndCorners};

TEST(VisionMasks, LabelEqualsScikitImage) {
  const std::vector<fp::Tensor> cases =
      mask_cases(truth<std::vector<std::int64_t>>("flat(coins_mask())"),
                 truth<std::vector<std::int64_t>>("list(coins_mask().shape)"));
  const auto expected = truth<std::vector<std::vector<std::int64_t>>>(
      "[flat(measure.label(m.numpy(), connectivity=c)) for m in MASKS for c in (1, 2)]");
  const auto counts = truth<std::vector<std::int64_t>>(
      "[measure.label(m.numpy(), connectivity=c, return_num=True)[1] for m in MASKS for c in (1, "
      "2)]");
  ASSERT_EQ(expected.size(), 2 * cases.size());
  std::size_t index = 0;
  for (const fp::Tensor& mask : cases) {
    for (const masks::Connectivity connectivity : kConnectivities) {
      const masks::Labels labels = masks::label(mask, connectivity);
      EXPECT_EQ(labels.labels.dtype(), fp::DType::I64);
      EXPECT_EQ(flat(labels.labels), expected[index]) << "case " << index;
      EXPECT_EQ(labels.count, counts[index]) << "case " << index;
      ++index;
    }
  }
}

TEST(VisionMasks, LabelSeparatesValuesAsScikitImage) {
  /*
  #|PYTHON
  values = torch.randint(0, 4, (23, 29), generator=torch.Generator().manual_seed(5))
  */
  fp::Generator generator(5);
  const fp::Tensor values = fp::randint(0, 4, {23, 29}, generator);
  const auto expected = truth<std::vector<std::int64_t>>("flat(measure.label(values.numpy()))");
  for (const fp::DType dtype : {fp::DType::I64, fp::DType::I32, fp::DType::U8, fp::DType::I16})
    EXPECT_EQ(flat(masks::label(values.to(dtype)).labels), expected) << fp::name(dtype);
  EXPECT_EQ(masks::label(fp::zeros({3, 4}, fp::DType::Bool)).count, 0);
  EXPECT_EQ(masks::label(fp::zeros({0, 4}, fp::DType::Bool)).labels.numel(), 0);
}

TEST(VisionMasks, ComponentStatsEqualRegionprops) {
  /*
  #|PYTHON
  regions = [measure.regionprops(measure.label(m.numpy(), connectivity=2)) for m in MASKS]
  */
  const std::vector<fp::Tensor> cases =
      mask_cases(truth<std::vector<std::int64_t>>("flat(coins_mask())"),
                 truth<std::vector<std::int64_t>>("list(coins_mask().shape)"));
  const auto areas = truth<std::vector<std::vector<std::int64_t>>>(
      "[[int(r.area) for r in rs] for rs in regions]");
  // regionprops' bbox (min_row, min_col, max_row, max_col), the max excluded,
  // as masks_to_boxes' (x1, y1, x2, y2), the last pixel included.
  const auto boxes = truth<std::vector<std::vector<std::int64_t>>>(
      "[[v for r in rs for v in (r.bbox[1], r.bbox[0], r.bbox[3] - 1, r.bbox[2] - 1)] for rs in "
      "regions]");
  ASSERT_EQ(areas.size(), cases.size());
  for (std::size_t index = 0; index < cases.size(); ++index) {
    const masks::ComponentStats stats = masks::component_stats(masks::label(cases[index]));
    EXPECT_EQ(stats.areas.to_vector<std::int64_t>(), areas[index]) << "case " << index;
    EXPECT_EQ(stats.boxes.dtype(), fp::DType::F32);
    EXPECT_EQ(flat(stats.boxes), boxes[index]) << "case " << index;
  }
}

TEST(VisionMasks, RemoveSmallObjectsEqualsScikitImage) {
  const std::vector<fp::Tensor> cases =
      mask_cases(truth<std::vector<std::int64_t>>("flat(coins_mask())"),
                 truth<std::vector<std::int64_t>>("list(coins_mask().shape)"));
  const auto expected = truth<std::vector<std::vector<std::int64_t>>>(
      "[flat(morphology.remove_small_objects(m.numpy(), max_size=s, connectivity=c))"
      " for m in MASKS for s in (0, 1, 3, 64) for c in (1, 2)]");
  ASSERT_EQ(expected.size(), 8 * cases.size());
  std::size_t index = 0;
  for (const fp::Tensor& mask : cases) {
    for (const std::int64_t max_size : {0, 1, 3, 64}) {
      for (const masks::Connectivity connectivity : kConnectivities) {
        const fp::Tensor kept = masks::remove_small_objects(mask, max_size, connectivity);
        EXPECT_EQ(kept.dtype(), fp::DType::Bool);
        EXPECT_EQ(flat(kept), expected[index]) << "case " << index;
        ++index;
      }
    }
  }
}

TEST(VisionMasks, FootprintsEqualScikitImage) {
  const auto disks = truth<std::vector<std::vector<std::int64_t>>>(
      "[flat(morphology.disk(r)) for r in (0, 1, 2, 5)]");
  const auto diamonds = truth<std::vector<std::vector<std::int64_t>>>(
      "[flat(morphology.diamond(r)) for r in (0, 1, 2, 5)]");
  std::size_t index = 0;
  for (const std::int64_t radius : {0, 1, 2, 5}) {
    EXPECT_EQ(flat(masks::disk(radius)), disks[index]) << radius;
    EXPECT_EQ(flat(masks::diamond(radius)), diamonds[index]) << radius;
    ++index;
  }
  EXPECT_EQ(flat(masks::rectangle(2, 3)),
            truth<std::vector<std::int64_t>>("flat(morphology.footprint_rectangle((2, 3)))"));
}

TEST(VisionMasks, BinaryMorphologyEqualsScikitImage) {
  /*
  #|PYTHON
  footprints = [None, morphology.disk(2), morphology.footprint_rectangle((2, 3)),
                np.array([[1, 1, 0], [0, 1, 0], [0, 1, 1]], np.uint8),
                np.array([[0, 1], [1, 1], [1, 0], [0, 1]], np.uint8)]
  operations = [morphology.binary_dilation, morphology.binary_erosion,
                morphology.binary_opening, morphology.binary_closing]
  */
  const std::vector<fp::Tensor> cases =
      mask_cases(truth<std::vector<std::int64_t>>("flat(coins_mask())"),
                 truth<std::vector<std::int64_t>>("list(coins_mask().shape)"));
  const auto expected = truth<std::vector<std::vector<std::int64_t>>>(
      "[flat(o(m.numpy(), f)) for m in MASKS for f in footprints for o in operations]");
  // Python's footprints, in order: the default cross, a disk, an even
  // rectangle, an asymmetric odd one, an asymmetric even one (bool here).
  const std::vector<std::optional<fp::Tensor>> footprints = {
      std::nullopt,
      masks::disk(2),
      masks::rectangle(2, 3),
      fp::tensor({{1, 1, 0}, {0, 1, 0}, {0, 1, 1}}).to(fp::DType::U8),
      fp::tensor({{false, true}, {true, true}, {true, false}, {false, true}}),
  };
  using Operation = fp::Tensor (*)(fp::TensorView, const std::optional<fp::TensorView>&);
  const Operation operations[] = {&masks::binary_dilation, &masks::binary_erosion,
                                  &masks::binary_opening, &masks::binary_closing};
  ASSERT_EQ(expected.size(), cases.size() * footprints.size() * 4);
  std::size_t index = 0;
  for (const fp::Tensor& mask : cases) {
    for (const std::optional<fp::Tensor>& footprint : footprints) {
      const std::optional<fp::TensorView> view =
          footprint ? std::optional<fp::TensorView>(*footprint) : std::nullopt;
      for (const Operation operation : operations) {
        const fp::Tensor result = operation(mask, view);
        EXPECT_EQ(result.dtype(), fp::DType::Bool) << "case " << index;
        EXPECT_TRUE(std::ranges::equal(result.sizes(), mask.sizes())) << "case " << index;
        EXPECT_EQ(flat(result), expected[index]) << "case " << index;
        ++index;
      }
    }
  }
}

TEST(VisionMasks, BinaryMorphologyTakesEachMaskOfABatch) {
  const fp::Tensor first = random_mask(1, 40, 50, 0.5);
  const fp::Tensor second = random_mask(7, 40, 50, 0.3);
  const fp::Tensor batch = fp::aten::stack({first, second}, 0);
  const fp::Tensor dilated = masks::binary_dilation(batch, masks::disk(1));
  EXPECT_TRUE(dilated.select(0, 0).is_equal(masks::binary_dilation(first, masks::disk(1))));
  EXPECT_TRUE(dilated.select(0, 1).is_equal(masks::binary_dilation(second, masks::disk(1))));
  EXPECT_EQ(masks::binary_erosion(fp::zeros({0, 5}, fp::DType::Bool)).numel(), 0);
}

TEST(VisionMasks, MinAreaRectEqualsShapely) {
  /*
  #|PYTHON
  from shapely import MultiPoint
  def random_points(seed, count):
      return torch.rand(count, 2, generator=torch.Generator().manual_seed(seed)) * 100
  def rectangle(points):
      box = MultiPoint(points.double().tolist()).minimum_rotated_rectangle
      return [box.area] + [v for corner in list(box.exterior.coords)[:4] for v in corner]
  coins_labels = measure.label(coins_mask().numpy(), connectivity=2)
  def component_points(label):
      ys, xs = np.nonzero(coins_labels == label)
      return torch.tensor(np.stack([xs, ys], 1))
  big = [int(label) for label in np.unique(coins_labels)[1:] if (coins_labels == label).sum() >= 3]
  */
  // Random points: shapely's rectangle, corner for corner (in any order).
  const auto expected = truth<std::vector<std::vector<double>>>(
      "[rectangle(random_points(s, n)) for s, n in ((1, 3), (2, 10), (3, 200))]");
  std::size_t index = 0;
  for (const auto& [seed, count] : {std::pair{1, 3}, {2, 10}, {3, 200}}) {
    fp::Generator generator(static_cast<std::uint64_t>(seed));
    const fp::Tensor points = fp::rand({count, 2}, generator).mul(100);
    const masks::RotatedBox box = masks::min_area_rect(points);
    const std::vector<double>& shapely = expected[index++];
    EXPECT_NEAR(box.area(), shapely[0], 1e-9 * shapely[0]) << seed;
    EXPECT_GE(box.angle, 0.0);
    EXPECT_LT(box.angle, 90.0);
    const std::vector<double> corners = box.corners().to_vector<double>();
    for (int corner = 0; corner < 4; ++corner) {
      const double x = shapely[1 + 2 * corner], y = shapely[2 + 2 * corner];
      double nearest = INFINITY;
      for (int ours = 0; ours < 4; ++ours)
        nearest = std::min(nearest, std::hypot(corners[2 * ours] - x, corners[2 * ours + 1] - y));
      EXPECT_LT(nearest, 1e-9 * 100) << "seed " << seed << " corner " << corner;
    }
  }
  // The components of a real mask, integer pixel positions (hull edges of
  // equal length and equal areas: the area only).
  const auto component_areas =
      truth<std::vector<double>>("[rectangle(component_points(label))[0] for label in big]");
  const auto big = truth<std::vector<std::int64_t>>("big");
  const masks::Labels labels =
      masks::label(fp::tensor(truth<std::vector<std::int64_t>>("flat(coins_mask())"))
                       .reshape(truth<std::vector<std::int64_t>>("list(coins_mask().shape)"))
                       .to(fp::DType::Bool));
  ASSERT_EQ(component_areas.size(), big.size());
  ASSERT_FALSE(big.empty());
  for (std::size_t i = 0; i < big.size(); ++i) {
    const fp::Tensor points = fp::aten::flip(fp::aten::nonzero(labels.labels.eq(big[i])), {1});
    EXPECT_NEAR(masks::min_area_rect(points).area(), component_areas[i], 1e-9 * component_areas[i])
        << "component " << big[i];
  }
}

TEST(VisionMasks, MinAreaRectOfSimpleShapes) {
  // An axis-aligned rectangle's corners: itself, angle 0, width along x.
  const masks::RotatedBox aligned = masks::min_area_rect(
      fp::tensor({{1.0, 2.0}, {7.0, 2.0}, {7.0, 5.0}, {1.0, 5.0}, {3.0, 4.0}}));
  EXPECT_DOUBLE_EQ(aligned.center_x, 4.0);
  EXPECT_DOUBLE_EQ(aligned.center_y, 3.5);
  EXPECT_DOUBLE_EQ(aligned.width, 6.0);
  EXPECT_DOUBLE_EQ(aligned.height, 3.0);
  EXPECT_DOUBLE_EQ(aligned.angle, 0.0);
  EXPECT_TRUE(
      aligned.corners().is_equal(fp::tensor({{1.0, 2.0}, {7.0, 2.0}, {7.0, 5.0}, {1.0, 5.0}})));
  // Points on a line: height 0; one point (repeated): size 0.
  const masks::RotatedBox line = masks::min_area_rect(fp::tensor({{0, 0}, {1, 1}, {3, 3}}));
  EXPECT_DOUBLE_EQ(line.height, 0.0);
  EXPECT_DOUBLE_EQ(line.angle, 45.0);
  EXPECT_NEAR(line.width, 3 * std::sqrt(2.0), 1e-12);
  const masks::RotatedBox point = masks::min_area_rect(fp::tensor({{2.5f, 4.0f}, {2.5f, 4.0f}}));
  EXPECT_EQ(point.area(), 0.0);
  EXPECT_EQ(point.center_x, 2.5);
  EXPECT_EQ(point.center_y, 4.0);
}

TEST(VisionMasks, ClassMasksEqualPyTorch) {
  /*
  #|PYTHON
  scores = torch.randn(2, 5, 7, 9, generator=torch.Generator().manual_seed(11))
  scores[0, :, 0, 0] = 1.0  # a tie: argmax takes the first
  probability = scores.softmax(1)
  */
  fp::Generator generator(11);
  fp::Tensor scores = fp::randn({2, 5, 7, 9}, generator);
  scores.i_mut(0, fp::all, 0, 0).fill_(1.0);
  const fp::Tensor argmax_masks = masks::class_masks(scores);
  EXPECT_TRUE(std::ranges::equal(argmax_masks.sizes(), scores.sizes()));
  EXPECT_EQ(flat(argmax_masks),
            truth<std::vector<std::int64_t>>(
                "flat(scores.argmax(1, keepdim=True) == torch.arange(5)[:, None, None])"));
  const auto expected = truth<std::vector<std::vector<std::int64_t>>>(
      "[flat(probability > t) for t in (0.0, 0.2, 0.5)]");
  std::size_t index = 0;
  for (const double threshold : {0.0, 0.2, 0.5})
    EXPECT_EQ(flat(masks::probability_masks(scores, threshold)), expected[index++]) << threshold;
}

TEST(VisionMasks, BadInputIsRefused) {
  const fp::Tensor mask = random_mask(1, 8, 8, 0.5);
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument,
                  "expected an image of [H, W], got torch.Size([2, 8, 8])",
                  masks::label(fp::zeros({2, 8, 8}, fp::DType::Bool)));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected a bool or integer image, got float32",
                  masks::label(fp::zeros({8, 8})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected int64 labels, got int32",
                  masks::component_stats({fp::zeros({8, 8}, fp::DType::I32), 0}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "label 3 outside 0..2",
                  masks::component_stats({fp::full({2, 2}, std::int64_t{3}), 2}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "a negative count of components",
                  masks::component_stats({fp::zeros({2, 2}, fp::DType::I64), -1}));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "pass `mask != 0`",
                  masks::remove_small_objects(mask.to(fp::DType::U8)));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "max_size must be 0 or more, got -1",
                  masks::remove_small_objects(mask, -1));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "the radius must be 0 or more, got -1",
                  masks::disk(-1));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "the radius must be 0 or more, got -2",
                  masks::diamond(-2));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected positive sides, got 0 x 3",
                  masks::rectangle(0, 3));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected a bool mask of [H, W] or [N, H, W]",
                  masks::binary_dilation(mask.to(fp::DType::F32)));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected a bool mask of [H, W] or [N, H, W]",
                  masks::binary_erosion(fp::zeros({1, 1, 8, 8}, fp::DType::Bool)));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected a footprint of [h, w], bool or integer",
                  masks::binary_opening(mask, fp::ones({3, 3})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "the footprint is empty",
                  masks::binary_closing(mask, fp::zeros({0, 3}, fp::DType::Bool)));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected floating scores of [N, C, H, W] with C > 0",
                  masks::class_masks(fp::zeros({5, 7, 9})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected floating scores of [N, C, H, W] with C > 0",
                  masks::class_masks(fp::zeros({1, 0, 7, 9})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected points of [K, 2] (x, y), K >= 1",
                  masks::min_area_rect(fp::zeros({0, 2})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected points of [K, 2] (x, y), K >= 1",
                  masks::min_area_rect(fp::zeros({4, 3})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "expected points of [K, 2] (x, y), K >= 1",
                  masks::min_area_rect(fp::zeros({4, 2}, fp::DType::Bool)));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "point 1 is not finite",
                  masks::min_area_rect(fp::tensor({{0.0, 0.0}, {std::nan(""), 1.0}})));
  EXPECT_FP_ERROR(fp::ErrorCode::BadArgument, "the threshold must lie in [0, 1], got 1.5",
                  masks::probability_masks(fp::zeros({1, 2, 3, 3}), 1.5));
}

}  // namespace
