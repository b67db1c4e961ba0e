// torch.nn.functional.gumbel_softmax: samples of the Gumbel-softmax
// distribution, drawn from an fp::Generator.
// https://pytorch.org/docs/stable/generated/torch.nn.functional.gumbel_softmax.html
//
//     fp::Generator generator(7);
//     fp::Tensor soft = fp::functional::gumbel_softmax(logits, generator, {.tau = 0.5});
//     fp::Tensor one_hot = fp::functional::gumbel_softmax(logits, generator, {.hard = true});
#pragma once

#include <cstdint>

#include "flash_powder/core/generator.h"
#include "flash_powder/core/tensor.h"

namespace fp::functional {

/// Python's keyword arguments but `eps`, which is deprecated and has no effect.
struct GumbelSoftmaxOptions {
  /// The temperature.
  double tau = 1.0;
  /// Return one-hot vectors (Python's straight-through `y_hard - y_soft + y_soft`,
  /// whose values are computed the same way here).
  bool hard = false;
  std::int64_t dim = -1;
};
/// softmax((logits + g) / tau) along `dim`, g = -log(e) for exponential
/// samples e drawn from `generator` as Python's
/// `torch.empty_like(logits).exponential_()` draws them: equal to Python's
/// `F.gumbel_softmax(logits, ...)` after `torch.manual_seed(seed)` for an
/// `fp::Generator(seed)`, bit for bit, on the CPU. (Samples are drawn on the
/// CPU and moved to the logits' device, so on CUDA they are not Python's.)
/// Throws fp::Error for logits that are not floating point.
Tensor gumbel_softmax(const TensorView& logits, Generator& generator,
                      const GumbelSoftmaxOptions& options = {});
/// The same with the samples drawn from libtorch's global generator, as
/// Python does; not reproducible from flash_powder (nothing seeds that generator).
Tensor gumbel_softmax(const TensorView& logits, const GumbelSoftmaxOptions& options = {});

}  // namespace fp::functional
