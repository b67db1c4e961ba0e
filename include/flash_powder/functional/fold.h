// torch.nn.functional.unfold (im2col) and fold (col2im): sliding local
// blocks of a batched image to columns and back.
// https://pytorch.org/docs/stable/nn.functional.html#vision-functions
//
//     fp::Tensor columns = fp::functional::unfold(x, 3, {.padding = 1});   // [N, C*9, L]
//     fp::Tensor image = fp::functional::fold(columns, {8, 8}, 3, {.padding = 1});
//
// Each returns a new Tensor, bit-exact with Python (both run ATen's kernels).
#pragma once

#include "flash_powder/core/tensor.h"
#include "flash_powder/nn/options.h"

namespace fp::functional {

/// The keyword arguments of fold and unfold, in Python's order.
struct FoldOptions {
  nn::ExpandingArray<2> dilation = 1;
  nn::ExpandingArray<2> padding = 0;
  nn::ExpandingArray<2> stride = 1;
};
using UnfoldOptions = FoldOptions;

/// [N, C, H, W] (or unbatched [C, H, W]) -> [N, C * prod(kernel_size), L],
/// one column per block position. Throws fp::Error with libtorch's message
/// for a kernel that does not fit.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.unfold.html
Tensor unfold(const TensorView& input, nn::ExpandingArray<2> kernel_size,
              const UnfoldOptions& options = {});

/// The inverse arrangement, summing overlapping values: [N, C * prod(kernel_size), L]
/// (or unbatched [C * prod(kernel_size), L]) -> [N, C, output_size...].
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.fold.html
Tensor fold(const TensorView& input, nn::ExpandingArray<2> output_size,
            nn::ExpandingArray<2> kernel_size, const FoldOptions& options = {});

}  // namespace fp::functional
