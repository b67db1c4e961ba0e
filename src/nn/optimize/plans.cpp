#include "plans.h"

#include <algorithm>
#include <array>
#include <span>
#include <utility>

#include "flash_powder/aten/aten.h"
#include "flash_powder/base/device.h"
#include "flash_powder/base/layout.h"

namespace fp::nn::detail {
namespace {

/// c10's channels-last contiguity (4-d and 5-d): dimensions of size 1 may
/// have any stride.
bool channels_last_contiguous(TensorView tensor) {
  static constexpr std::array<std::size_t, 4> order2d{1, 3, 2, 0};
  static constexpr std::array<std::size_t, 5> order3d{1, 4, 3, 2, 0};
  const auto sizes = tensor.sizes();
  const auto strides = tensor.strides();
  const std::span<const std::size_t> order = sizes.size() == 4
                                                 ? std::span<const std::size_t>(order2d)
                                                 : std::span<const std::size_t>(order3d);
  if (sizes.size() != order.size()) return false;
  std::int64_t expected = 1;
  for (const std::size_t d : order) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

/// The sizes of the convolution `kernel` makes of `input` (batched).
std::vector<std::int64_t> convolution_output_sizes(const FusedKernel& kernel, TensorView input) {
  const auto sizes = input.sizes();
  std::vector<std::int64_t> result{sizes[0], kernel.out_channels};
  for (std::size_t d = 0; d + 2 < sizes.size(); ++d) {
    const std::int64_t extent = kernel.dilation[d] * (kernel.kernel_size[d] - 1) + 1;
    result.push_back((sizes[d + 2] + 2 * kernel.padding[d] - extent) / kernel.stride[d] + 1);
  }
  return result;
}

}  // namespace

bool FusedPlan::takes(TensorView input) const {
  if (!kernel_) return false;
  return input.layout() == Layout::Strided && input.device().is_cpu() &&
         input.dtype() == kernel_->dtype && (!kernel_->rank || input.dim() == *kernel_->rank) &&
         input.dim() >= 1 && input.numel() > 0;
}

const Tensor& FusedPlan::weight(TensorView input) const {
  const FusedKernel& k = *kernel_;
  if (k.kind != FusedKernel::Kind::Convolution) return k.weight;
  std::call_once(weight_packed_, [&] {
    const Tensor dense = aten::to_mkldnn(dense_weight_);
    packed_weight_ = k.kernel_size.size() == 2
                         ? aten::mkldnn_reorder_conv2d_weight(dense, k.padding, k.stride,
                                                              k.dilation, k.groups, input.sizes())
                         : aten::mkldnn_reorder_conv3d_weight(dense, k.padding, k.stride,
                                                              k.dilation, k.groups, input.sizes());
    dense_weight_ = Tensor();
  });
  return packed_weight_;
}

Tensor FusedPlan::eager(TensorView input) const {
  std::call_once(eager_made_, [this] { eager_layer_ = make_eager_(); });
  Tensor result = (*eager_layer_)(input);
  return eager_activation_ ? (*eager_activation_)(result) : result;
}

Tensor FusedPlan::forward(TensorView input) const {
  if (!takes(input)) return eager(input);
  const FusedKernel& k = *kernel_;
  const std::optional<TensorArg> bias =
      k.bias.is_defined() ? std::optional<TensorArg>(k.bias) : std::nullopt;
  switch (k.kind) {
    case FusedKernel::Kind::Convolution:
      return aten::mkldnn::_convolution_pointwise(input, weight(input), bias, k.padding, k.stride,
                                                  k.dilation, k.groups, post_);
    case FusedKernel::Kind::TransposedConvolution:
      return aten::mkldnn::_convolution_transpose_pointwise(input, k.weight, bias, k.padding,
                                                            k.output_padding, k.stride, k.dilation,
                                                            k.groups, post_);
    case FusedKernel::Kind::Linear:
      break;
  }
  return aten::mkldnn::_linear_pointwise(input, k.weight, bias, post_);
}

bool FusedPlan::folded(const InferencePlan& other) const {
  const auto* pass = dynamic_cast<const PassThroughPlan*>(&other);
  return folds_norm_ && pass != nullptr && pass->into() == this;
}

bool FusedPlan::add_into(TensorView input, Tensor& other, bool relu) const {
  if (!takes(input) || kernel_->kind != FusedKernel::Kind::Convolution || post_.attr != "none" ||
      kernel_->groups != 1)
    return false;
  // The kernel adds in place only into a channels-last tensor of the
  // result's sizes and dtype (otherwise it would convolve, then add).
  const FusedKernel& k = *kernel_;
  if (other.layout() != Layout::Strided || !other.device().is_cpu() || other.dtype() != k.dtype ||
      !std::ranges::equal(other.sizes(), convolution_output_sizes(k, input)) ||
      !channels_last_contiguous(other))
    return false;
  const std::optional<TensorArg> bias =
      k.bias.is_defined() ? std::optional<TensorArg>(k.bias) : std::nullopt;
  aten::mkldnn::_convolution_pointwise_binary_(
      other, input, weight(input), bias, k.padding, k.stride, k.dilation, k.groups, "add",
      relu ? std::optional<std::string_view>("relu") : std::nullopt);
  return true;
}

}  // namespace fp::nn::detail
