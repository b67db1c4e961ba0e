// The in-place forms of the activations: torch.nn.functional.relu_, elu_,
// celu_, selu_, hardtanh_, leaky_relu_, rrelu_ and threshold_.
// https://pytorch.org/docs/stable/nn.functional.html#non-linear-activation-functions
//
// Each writes its result into `input` (a non-const fp::Tensor or an
// fp::TensorMutView, whose writes reach its parent), like the fp::aten
// wrappers of in-place ops, with the bits and the exactness notes of the
// function of the same name without the underscore (functional/activation.h).
#pragma once

#include "flash_powder/core/tensor_arg.h"
#include "flash_powder/functional/activation.h"

namespace fp::functional {

/// https://pytorch.org/docs/stable/generated/torch.nn.functional.relu_.html
void relu_(MutableTensor input);
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.elu_.html
void elu_(MutableTensor input, const EluOptions& options = {});
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.celu.html
void celu_(MutableTensor input, const CeluOptions& options = {});
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.selu.html
void selu_(MutableTensor input);
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.hardtanh_.html
void hardtanh_(MutableTensor input, const HardtanhOptions& options = {});
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.leaky_relu_.html
void leaky_relu_(MutableTensor input, const LeakyReluOptions& options = {});
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.rrelu_.html
void rrelu_(MutableTensor input, const RreluOptions& options = {});
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.threshold_.html
void threshold_(MutableTensor input, double threshold, double value);

}  // namespace fp::functional
