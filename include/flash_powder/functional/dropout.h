// torch.nn.functional.dropout, dropout1d/2d/3d, alpha_dropout and
// feature_alpha_dropout.
// https://pytorch.org/docs/stable/nn.functional.html#dropout-functions
//
//     fp::functional::dropout2d(x, {.training = false});                 // a copy of x
//     fp::Generator generator(0);
//     fp::functional::dropout2d(x, {.p = 0.3, .generator = &generator});   // Python's, seeded
//
// In eval mode (`training = false`) each is the identity: a copy of the input
// (dropout1d still checks the input's rank, as in Python). In training mode
// elements (dropout, alpha_dropout) or whole channels (the others) are
// dropped: with a `generator`, the mask is drawn from it exactly as
// libtorch's CPU kernel draws it, so the result equals Python's after
// `torch.manual_seed(seed)` for an `fp::Generator(seed)`, bit for bit (the
// mask is drawn on the CPU and moved to the input's device); without one,
// libtorch's own op draws from its global generator, as Python's does.
// Each throws fp::Error unless 0 <= p <= 1, and returns a new Tensor.
#pragma once

#include "flash_powder/core/generator.h"
#include "flash_powder/core/tensor.h"

namespace fp::functional {

/// The keyword arguments of dropout, with PyTorch's defaults.
struct DropoutOptions {
  /// The probability of zeroing an element.
  double p = 0.5;
  /// Python's default: dropout is applied unless training is false.
  bool training = true;
  /// Where training draws its mask from (libtorch's global generator when null).
  Generator* generator = nullptr;
};

/// Zeroes each element with probability p and scales the rest by 1/(1-p).
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.dropout.html
Tensor dropout(const TensorView& input, const DropoutOptions& options = {});
/// Zeroes whole channels of [N, C, L] or unbatched [C, L]. Throws fp::Error
/// (also in eval mode, as Python) for other ranks.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.dropout1d.html
Tensor dropout1d(const TensorView& input, const DropoutOptions& options = {});
/// Zeroes whole channels of [N, C, H, W] (Python treats 3-D input as [N, C, L]
/// and warns; so does this, without the warning).
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.dropout2d.html
Tensor dropout2d(const TensorView& input, const DropoutOptions& options = {});
/// Zeroes whole channels of [N, C, D, H, W] or unbatched [C, D, H, W].
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.dropout3d.html
Tensor dropout3d(const TensorView& input, const DropoutOptions& options = {});

struct AlphaDropoutOptions {
  double p = 0.5;
  /// Python's default for alpha_dropout and feature_alpha_dropout: eval mode.
  bool training = false;
  /// Where training draws its mask from (libtorch's global generator when null).
  Generator* generator = nullptr;
};

/// Dropout that keeps SELU's zero mean and unit variance: dropped elements
/// take SELU's negative saturation value, then all are scaled and shifted.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.alpha_dropout.html
Tensor alpha_dropout(const TensorView& input, const AlphaDropoutOptions& options = {});
/// alpha_dropout of whole channels (dimension 1; at least 2-D input in training).
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.feature_alpha_dropout.html
Tensor feature_alpha_dropout(const TensorView& input, const AlphaDropoutOptions& options = {});

}  // namespace fp::functional
