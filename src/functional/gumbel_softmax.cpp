#include "flash_powder/functional/gumbel_softmax.h"

#include <string>

#include "flash_powder/aten/aten.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/operators.h"
#include "flash_powder/functional/activation.h"

// torch/nn/functional.py's gumbel_softmax, step by step, so that it rounds as Python does.

namespace fp::functional {
namespace {

void check_floating(const TensorView& logits) {
  if (!is_floating_point(logits.dtype()) || is_complex(logits.dtype())) {
    throw Error(ErrorCode::BadArgument,
                "fp::functional::gumbel_softmax: the logits must be floating point, but got "
                "torch." +
                    std::string(name(logits.dtype())));
  }
}

/// From `exponential` (Python's `torch.empty_like(logits).exponential_()`) on.
Tensor from_samples(const TensorView& logits, const Tensor& exponential,
                    const GumbelSoftmaxOptions& options) {
  const Tensor gumbels = aten::neg(aten::log(exponential));
  const Tensor scaled = (logits + gumbels) / options.tau;  // tau as Python's number
  Tensor soft = softmax(scaled, options.dim);
  if (!options.hard) return soft;
  const Tensor index = std::get<1>(aten::max_dim(soft, options.dim, true));
  const Tensor ones = ones_like(index, TensorOptions(logits.dtype()));
  const Tensor hard = aten::scatter_src(zeros_like(logits), options.dim, index, ones);
  // Python's straight-through `y_hard - y_soft.detach() + y_soft`, rounding included.
  return (hard - soft) + soft;
}

}  // namespace

Tensor gumbel_softmax(const TensorView& logits, Generator& generator,
                      const GumbelSoftmaxOptions& options) {
  check_floating(logits);
  const Tensor samples =
      exponential(logits.sizes(), generator, 1.0, TensorOptions(logits.dtype(), logits.device()));
  return from_samples(logits, samples, options);
}

Tensor gumbel_softmax(const TensorView& logits, const GumbelSoftmaxOptions& options) {
  check_floating(logits);
  Tensor samples = empty(logits.sizes(), TensorOptions(logits.dtype(), logits.device()));
  aten::exponential_(samples, 1.0);
  return from_samples(logits, samples, options);
}

}  // namespace fp::functional
