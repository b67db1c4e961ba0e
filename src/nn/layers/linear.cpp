#include "flash_powder/nn/layers/linear.h"

#include <cmath>
#include <string>
#include <vector>

#include "flash_powder/aten/aten.h"
#include "flash_powder/aten/shim.h"

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

std::optional<Tensor> linear_then_gelu(TensorView input, TensorView weight,
                                       const std::optional<TensorView>& bias) {
  const DType dtype = input.dtype();
  const bool same_arithmetic =
      bias && (dtype == DType::F32 || dtype == DType::F64) && input.device() == Device::cpu() &&
      weight.device() == Device::cpu() && bias->device() == Device::cpu() &&
      weight.dtype() == dtype && bias->dtype() == dtype && weight.dim() == 2 && bias->dim() == 1 &&
      input.dim() >= 2 && input.is_contiguous() && input.numel() > 0 &&
      input.sizes().back() == weight.sizes()[1] && bias->sizes()[0] == weight.sizes()[0];
  if (!same_arithmetic) return std::nullopt;
  const std::int64_t in_features = input.sizes().back();
  const std::int64_t rows = input.numel() / in_features;
  std::vector<std::int64_t> output_sizes(input.sizes().begin(), input.sizes().end());
  output_sizes.back() = weight.sizes()[0];
  const Tensor product = aten::shim::_addmm_activation(
      *bias, input.reshape({rows, in_features}), aten::t(weight), 1.0, 1.0, /*use_gelu=*/true);
  return product.reshape(output_sizes);
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
