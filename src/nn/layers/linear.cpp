#include "flash_powder/nn/layers/linear.h"

#include <cmath>
#include <string>

#include "flash_powder/functional/linear.h"
#include "layer_linear.h"
#include "nn/messages.h"
#include "parameters.h"

namespace fp::nn {

namespace detail {

Tensor layer_linear(TensorView input, TensorView weight, const std::optional<TensorView>& bias) {
  if (input.dim() < 3 || input.is_contiguous()) return functional::linear(input, weight, bias);
  Tensor output = functional::linear(input.contiguous(), weight, std::nullopt);
  if (bias) output.add_(*bias);
  return output;
}

}  // namespace detail

Linear::Linear(std::int64_t in_features, std::int64_t out_features, const LinearOptions& options)
    : in_features(in_features), out_features(out_features) {
  // PyTorch's kaiming_uniform_(a=sqrt(5)) and bias init: uniform(+-1/sqrt(in_features)).
  const double bound = in_features > 0 ? 1.0 / std::sqrt(static_cast<double>(in_features)) : 0.0;
  const TensorOptions tensor_options = detail::layer_options(options.dtype, options.device);
  weight = detail::uniform_init({out_features, in_features}, bound, tensor_options);
  if (options.bias) bias = detail::uniform_init({out_features}, bound, tensor_options);
}

void Linear::visit(Visitor& visitor) {
  visitor.parameter("weight", weight);
  visitor.parameter("bias", bias);
}

Tensor Linear::forward(TensorView input) const {
  return detail::layer_linear(input, weight, detail::optional_view(bias));
}

Bilinear::Bilinear(std::int64_t in1_features, std::int64_t in2_features, std::int64_t out_features,
                   const LinearOptions& options)
    : in1_features(in1_features), in2_features(in2_features), out_features(out_features) {
  if (in1_features <= 0) {
    detail::fail("Bilinear", "in1_features must be > 0, but got (in1_features=" +
                                 std::to_string(in1_features) + ")");
  }
  // PyTorch: weight and bias uniform(+-1/sqrt(in1_features)).
  const double bound = 1.0 / std::sqrt(static_cast<double>(in1_features));
  const TensorOptions tensor_options = detail::layer_options(options.dtype, options.device);
  weight = detail::uniform_init({out_features, in1_features, in2_features}, bound, tensor_options);
  if (options.bias) bias = detail::uniform_init({out_features}, bound, tensor_options);
}

void Bilinear::visit(Visitor& visitor) {
  visitor.parameter("weight", weight);
  visitor.parameter("bias", bias);
}

Tensor Bilinear::forward(TensorView input1, TensorView input2) const {
  return functional::bilinear(input1, input2, weight, detail::optional_view(bias));
}

Tensor Identity::forward(TensorView input) const {
  return input.to_owned();
}

}  // namespace fp::nn
