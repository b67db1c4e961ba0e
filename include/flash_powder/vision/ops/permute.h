// torchvision.ops.Permute: a layer that permutes its input's dimensions
// (Swin Transformer's NCHW <-> NHWC, ConvNeXt's). It has no parameters.
// https://pytorch.org/vision/stable/generated/torchvision.ops.Permute.html
#pragma once

#include <cstdint>
#include <vector>

#include "flash_powder/core/array_ref.h"
#include "flash_powder/nn/module.h"

namespace fp::vision::ops {

/// `input.permute(dims)`: the same values with the dimensions reordered, in
/// the same memory (the strides permuted, as in Python: a layer after it
/// sees the strided layout, and libtorch picks its kernels for it).
class Permute : public nn::Module {
 public:
  /// Reorders the dimensions as `dims` lists them.
  explicit Permute(IntList dims) : dims(dims.begin(), dims.end()) {}
  Tensor forward(TensorView input) const override;
  /// The new order of the dimensions.
  std::vector<std::int64_t> dims;
};

}  // namespace fp::vision::ops
