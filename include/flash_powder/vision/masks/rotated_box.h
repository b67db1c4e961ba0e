// The smallest rectangle, at any angle, around a set of points: what OpenCV
// calls minAreaRect and shapely minimum_rotated_rectangle, the box of a
// tilted object (a line of text, a parcel) that an axis-aligned box
// overstates.
//
//     fp::Tensor pixels = fp::aten::flip(fp::aten::nonzero(component), {1});  // [K, 2] (x, y)
//     fp::vision::masks::RotatedBox box = fp::vision::masks::min_area_rect(pixels);
//     fp::Tensor corners = box.corners();                           // [4, 2]
#pragma once

#include "flash_powder/core/tensor.h"

namespace fp::vision::masks {

/// A rectangle turned by `angle`: its centre, the side along `angle` and the
/// side across it.
struct RotatedBox {
  /// The centre's x.
  double center_x = 0;
  /// The centre's y.
  double center_y = 0;
  /// The length of the sides that point along `angle`.
  double width = 0;
  /// The length of the other two.
  double height = 0;
  /// In degrees, in [0, 90): the direction of the `width` sides from the
  /// x axis towards the y axis (clockwise on an image, whose y points down).
  double angle = 0;

  /// The area, width * height.
  double area() const { return width * height; }
  /// float64 [4, 2]: the corners (x, y), going round: centre - w/2 - h/2,
  /// + w/2 - h/2, + w/2 + h/2, - w/2 + h/2 along the sides' directions.
  Tensor corners() const;
};

/// The rectangle of least area that holds every point of `points` ([K, 2],
/// (x, y), a floating or integer dtype, K >= 1): one of its sides lies on
/// an edge of the points' convex hull, tried in turn (rotating calipers).
/// Points on one line give height 0; a single point a box of size 0.
/// fp::Error for another shape, no points or a point that is not finite.
RotatedBox min_area_rect(TensorView points);

}  // namespace fp::vision::masks
