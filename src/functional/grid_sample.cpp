#include "flash_powder/functional/grid_sample.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "flash_powder/aten/aten.h"
#include "nn/messages.h"

namespace fp::functional {
namespace {

/// (Named apart from pooling.cpp's fail(), which a unity batch puts beside it.)
[[noreturn]] void refuse(const char* function, const std::string& message) {
  throw Error(ErrorCode::BadArgument, std::string("fp::functional::") + function + ": " + message);
}

/// Python's GRID_SAMPLE_INTERPOLATION_MODES.
std::int64_t interpolation_mode(const std::string& mode) {
  if (mode == "bilinear") return 0;
  if (mode == "nearest") return 1;
  if (mode == "bicubic") return 2;
  refuse("grid_sample",
         "expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '" + mode + "'");
}

/// Python's GRID_SAMPLE_PADDING_MODES.
std::int64_t padding_mode(const std::string& mode) {
  if (mode == "zeros") return 0;
  if (mode == "border") return 1;
  if (mode == "reflection") return 2;
  refuse("grid_sample",
         "expected padding_mode to be 'zeros', 'border', or 'reflection', but got: '" + mode + "'");
}

/// Python's shape checks of affine_grid: theta must be [N, rows, rows + 1].
void check_theta(const TensorView& theta, IntList size, std::int64_t rows) {
  if (theta.dim() != 3 || theta.size(-2) != rows || theta.size(-1) != rows + 1) {
    const std::string shape = std::to_string(rows) + "x" + std::to_string(rows + 1);
    refuse("affine_grid", "Expected a batch of " + std::to_string(rows) +
                              "D affine matrices of shape Nx" + shape + " for size " +
                              nn::detail::list_text(size) + ". Got " +
                              nn::detail::torch_size(theta.sizes()) + ".");
  }
}

}  // namespace

Tensor grid_sample(const TensorView& input, const TensorView& grid,
                   const GridSampleOptions& options) {
  const std::int64_t mode = interpolation_mode(options.mode);
  const std::int64_t padding = padding_mode(options.padding_mode);
  return aten::grid_sampler(input, grid, mode, padding, options.align_corners);
}

Tensor affine_grid(const TensorView& theta, IntList size, const AffineGridOptions& options) {
  if (!is_floating_point(theta.dtype())) {
    refuse("affine_grid", "Expected theta to have floating point type, but got torch." +
                              std::string(name(theta.dtype())));
  }
  if (size.size() != 4 && size.size() != 5) {
    refuse("affine_grid",
           "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
           "respectively. Got size " +
               nn::detail::list_text(size) + ".");
  }
  const auto rows = static_cast<std::int64_t>(size.size()) - 2;
  check_theta(theta, size, rows);
  const std::vector<std::int64_t> spatial(size.end() - rows, size.end());
  // Python only warns about a unit-size spatial dimension with align_corners,
  // and then skips the check for sizes <= 0.
  const bool unit_span = options.align_corners && std::ranges::min(spatial) == 1;
  if (!unit_span && std::ranges::min(size) <= 0) {
    refuse("affine_grid",
           "Expected non-zero, positive output size. Got " + nn::detail::list_text(size));
  }
  return aten::affine_grid_generator(theta, size, options.align_corners);
}

}  // namespace fp::functional
