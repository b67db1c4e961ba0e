// torch.nn.Fold and Unfold (fp::functional's fold and unfold as layers).
#pragma once

#include "flash_powder/functional/fold.h"
#include "flash_powder/nn/module.h"
#include "flash_powder/nn/options.h"

namespace fp::nn {

/// dilation, padding and stride, in Python's order.
using FoldOptions = functional::FoldOptions;
using UnfoldOptions = functional::UnfoldOptions;

/// Combines sliding blocks [N, C * prod(kernel_size), L] into [N, C, output_size...].
/// https://pytorch.org/docs/stable/generated/torch.nn.Fold.html
class Fold : public Module {
 public:
  Fold(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size,
       const FoldOptions& options = {})
      : output_size(output_size), kernel_size(kernel_size), options(options) {}
  Tensor forward(TensorView input) const override;
  ExpandingArray<2> output_size;
  ExpandingArray<2> kernel_size;
  FoldOptions options;
};

/// Extracts sliding blocks: [N, C, H, W] -> [N, C * prod(kernel_size), L].
/// https://pytorch.org/docs/stable/generated/torch.nn.Unfold.html
class Unfold : public Module {
 public:
  explicit Unfold(ExpandingArray<2> kernel_size, const UnfoldOptions& options = {})
      : kernel_size(kernel_size), options(options) {}
  Tensor forward(TensorView input) const override;
  ExpandingArray<2> kernel_size;
  UnfoldOptions options;
};

}  // namespace fp::nn
