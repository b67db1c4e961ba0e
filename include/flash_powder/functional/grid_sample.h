// Spatial transformers: torch.nn.functional.grid_sample and affine_grid.
// https://pytorch.org/docs/stable/nn.functional.html#vision-functions
//
//     fp::Tensor grid = fp::functional::affine_grid(theta, {2, 3, 8, 8}, {.align_corners = false});
//     fp::Tensor warped = fp::functional::grid_sample(x, grid, {.padding_mode = "border"});
//
// Each returns a new Tensor, bit-exact with Python (both run ATen's kernels).
#pragma once

#include <string>

#include "flash_powder/core/array_ref.h"
#include "flash_powder/core/tensor.h"

namespace fp::functional {

struct GridSampleOptions {
  /// "bilinear" (trilinear for 5-D input), "nearest" or "bicubic" (4-D only).
  std::string mode = "bilinear";
  /// Where the grid points outside the input: "zeros", "border" or "reflection".
  std::string padding_mode = "zeros";
  /// -1 and 1 are the centres of the corner pixels (true) or their outer
  /// corners (false). Python's default None means false (with a warning).
  bool align_corners = false;
};
/// Samples `input` [N, C, H, W] at the normalised locations `grid`
/// [N, H_out, W_out, 2] (x, y in [-1, 1]) into [N, C, H_out, W_out]; 5-D:
/// [N, C, D, H, W] at [N, D_out, H_out, W_out, 3]. Throws fp::Error with
/// Python's message for an unknown mode or padding_mode, and libtorch's for
/// shapes that do not fit.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.grid_sample.html
Tensor grid_sample(const TensorView& input, const TensorView& grid,
                   const GridSampleOptions& options = {});

struct AffineGridOptions {
  /// As grid_sample's; Python's default None means false (with a warning).
  bool align_corners = false;
};
/// The sampling grid of the affine maps `theta` (floating point, [N, 2, 3]
/// for `size` [N, C, H, W], or [N, 3, 4] for [N, C, D, H, W]): [N, H, W, 2]
/// or [N, D, H, W, 3], for grid_sample. Throws fp::Error with Python's
/// message when theta and size do not fit.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.affine_grid.html
Tensor affine_grid(const TensorView& theta, IntList size, const AffineGridOptions& options = {});

}  // namespace fp::functional
