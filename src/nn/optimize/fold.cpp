#include "fold.h"

#include <cstdint>
#include <vector>

#include "flash_powder/aten/aten.h"
#include "flash_powder/aten/shim.h"
#include "flash_powder/core/operators.h"

namespace fp::nn::detail {

std::pair<Tensor, Tensor> fold_batch_norm(const Tensor& conv_weight, const Tensor& conv_bias,
                                          const NormToFold& bn) {
  // Per output channel, broadcast over the weight's other dimensions.
  std::vector<std::int64_t> per_channel(static_cast<std::size_t>(conv_weight.dim()), 1);
  per_channel[0] = -1;
  // `1 / torch.sqrt(running_var + eps)`: Python's `1 / t` is `t.reciprocal() * 1`.
  const Tensor invstd =
      aten::reciprocal(aten::sqrt(aten::shim::add_Scalar(bn.running_var, bn.eps)));
  Tensor weight = conv_weight * invstd.reshape(per_channel);
  // Binary folding starts the bias at 0 (`sub(0, mean)`) when there is none.
  Tensor bias =
      (conv_bias.is_defined() ? conv_bias - bn.running_mean : Scalar(0.0) - bn.running_mean) *
      invstd;
  if (bn.weight.is_defined()) {
    weight = weight * bn.weight.reshape(per_channel);
    bias = bias * bn.weight;
  }
  if (bn.bias.is_defined()) bias = bias + bn.bias;
  return {std::move(weight), std::move(bias)};
}

}  // namespace fp::nn::detail
