// The minimum-area enclosing rectangle of a set of points: the convex hull
// (Andrew's monotone chain) and, for each hull edge, the box aligned with it.
#include "flash_powder/vision/masks/rotated_box.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/text.h"
#include "flash_powder/core/factory.h"
#include "vision/masks/refuse.h"

namespace fp::vision::masks {
namespace {

struct Point {
  double x;
  double y;
  bool operator==(const Point& other) const { return x == other.x && y == other.y; }
  bool operator<(const Point& other) const { return x < other.x || (x == other.x && y < other.y); }
};

/// > 0 when o -> a -> b turns counter-clockwise (x right, y up).
double cross(const Point& o, const Point& a, const Point& b) {
  return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

/// The convex hull's corners in order, without collinear points; one point
/// when all are equal, two when they lie on a line.
std::vector<Point> convex_hull(std::vector<Point> points) {
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  if (points.size() < 3) return points;
  std::vector<Point> hull(2 * points.size());
  std::size_t k = 0;
  for (const Point& p : points) {  // lower chain
    while (k >= 2 && cross(hull[k - 2], hull[k - 1], p) <= 0)
      --k;
    hull[k++] = p;
  }
  for (std::size_t i = points.size() - 1, lower = k + 1; i-- > 0;) {  // upper chain
    while (k >= lower && cross(hull[k - 2], hull[k - 1], points[i]) <= 0)
      --k;
    hull[k++] = points[i];
  }
  hull.resize(k - 1);  // the last point is the first
  return hull;
}

/// The box around `hull` whose width sides point along the unit vector (ux, uy).
RotatedBox box_along(const std::vector<Point>& hull, double ux, double uy) {
  double along_min = INFINITY, along_max = -INFINITY, across_min = INFINITY, across_max = -INFINITY;
  for (const Point& p : hull) {
    const double along = p.x * ux + p.y * uy;
    const double across = -p.x * uy + p.y * ux;
    along_min = std::min(along_min, along);
    along_max = std::max(along_max, along);
    across_min = std::min(across_min, across);
    across_max = std::max(across_max, across);
  }
  const double along_mid = (along_min + along_max) / 2;
  const double across_mid = (across_min + across_max) / 2;
  return {along_mid * ux - across_mid * uy, along_mid * uy + across_mid * ux, along_max - along_min,
          across_max - across_min, std::atan2(uy, ux) * 180 / std::numbers::pi};
}

/// The same box with its angle in [0, 90), the sides swapped where a
/// quarter turn brings it there.
RotatedBox normalised(RotatedBox box) {
  double angle = std::fmod(box.angle, 180.0);
  if (angle < 0) angle += 180.0;
  if (angle >= 90.0) {
    angle -= 90.0;
    std::swap(box.width, box.height);
  }
  box.angle = angle;
  return box;
}

std::vector<Point> checked_points(TensorView points) {
  if (points.dim() != 2 || points.size(1) != 2 || points.size(0) == 0 ||
      !(is_floating_point(points.dtype()) || is_integral(points.dtype())))
    detail::refuse("min_area_rect",
                   "expected points of [K, 2] (x, y), K >= 1, real-valued, got a " +
                       fp::detail::torch_size(points.sizes()) + " " +
                       std::string(name(points.dtype())) + " tensor");
  const Tensor values = points.to(TensorOptions(DType::F64, Device::cpu())).contiguous();
  const std::span<const double> xy = values.data<double>();
  std::vector<Point> out(xy.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = {xy[2 * i], xy[2 * i + 1]};
    if (!std::isfinite(out[i].x) || !std::isfinite(out[i].y))
      detail::refuse("min_area_rect", "point " + std::to_string(i) + " is not finite");
  }
  return out;
}

}  // namespace

Tensor RotatedBox::corners() const {
  const double radians = angle * std::numbers::pi / 180;
  const double ux = std::cos(radians), uy = std::sin(radians);
  const double half_w = width / 2, half_h = height / 2;
  Tensor out = empty({4, 2}, DType::F64);
  const std::span<double> xy = out.data_mut<double>();
  const double signs[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
  for (std::size_t i = 0; i < 4; ++i) {
    const double along = signs[i][0] * half_w;
    const double across = signs[i][1] * half_h;
    xy[2 * i] = center_x + along * ux - across * uy;
    xy[2 * i + 1] = center_y + along * uy + across * ux;
  }
  return out;
}

RotatedBox min_area_rect(TensorView points) {
  const std::vector<Point> hull = convex_hull(checked_points(points));
  if (hull.size() == 1) return {hull[0].x, hull[0].y, 0, 0, 0};
  RotatedBox best{};
  double best_area = INFINITY;
  for (std::size_t i = 0; i < hull.size(); ++i) {
    const Point& a = hull[i];
    const Point& b = hull[(i + 1) % hull.size()];
    const double length = std::hypot(b.x - a.x, b.y - a.y);
    const RotatedBox box = box_along(hull, (b.x - a.x) / length, (b.y - a.y) / length);
    if (box.area() < best_area) {
      best_area = box.area();
      best = box;
    }
  }
  return normalised(best);
}

}  // namespace fp::vision::masks
