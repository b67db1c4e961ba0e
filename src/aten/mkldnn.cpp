// fp::aten::mkldnn (aten/mkldnn.h): the oneDNN kernels through their C shims
// (abi/mkldnn_shims.h), after checking that every tensor is on the CPU.
#include "flash_powder/aten/mkldnn.h"

#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <string>

#include "abi/mkldnn_shims.h"
#include "aten/call.h"
#include "flash_powder/base/error.h"

namespace fp::aten::mkldnn {
namespace {

namespace op = ::fp::aten::detail;
using abi::RawTensor;

/// Refuses, naming `what` and the tensor, anything but defined CPU tensors:
/// these are CPU kernels, and a CUDA tensor must never reach one.
void require_cpu(const char* what, std::initializer_list<RawTensor> tensors) {
  const std::optional<std::size_t> position = abi::mkldnn::first_not_on_cpu(tensors);
  if (!position) return;
  const RawTensor wrong = std::data(tensors)[*position];
  const std::string got = wrong != nullptr && abi::is_defined(wrong)
                              ? "a tensor on " + abi::device(wrong).str()
                              : std::string("an undefined tensor");
  throw Error(ErrorCode::Unsupported,
              std::string(what) + ": oneDNN's fused kernels take CPU tensors only; got " + got);
}

RawTensor raw(const std::optional<TensorArg>& tensor) {
  return tensor ? tensor->raw() : nullptr;
}

/// `post` as the abi layer takes it (views of its strings and scalars).
abi::mkldnn::Unary unary(const PostOp& post) {
  abi::mkldnn::Unary result{.attr = post.attr, .scalars = post.scalars};
  if (post.algorithm) result.algorithm = *post.algorithm;
  return result;
}

abi::mkldnn::Unary unary(std::optional<std::string_view> attr) {
  return {.attr = attr.value_or("none")};
}

}  // namespace

bool available() noexcept {
  return abi::mkldnn::available();
}

Tensor _convolution_pointwise(TensorArg X, TensorArg W, std::optional<TensorArg> B, IntList padding,
                              IntList stride, IntList dilation, std::int64_t groups,
                              const PostOp& post) {
  constexpr const char* what = "mkldnn::_convolution_pointwise";
  require_cpu(what, {X.raw(), W.raw()});
  if (B) require_cpu(what, {B->raw()});
  return Tensor(abi::mkldnn::convolution_pointwise(X.raw(), W.raw(), raw(B), padding, stride,
                                                   dilation, groups, unary(post), what));
}

Tensor _convolution_pointwise_binary(TensorArg X, TensorArg other, TensorArg W,
                                     std::optional<TensorArg> B, IntList padding, IntList stride,
                                     IntList dilation, std::int64_t groups,
                                     std::string_view binary_attr,
                                     std::optional<std::string_view> unary_attr) {
  constexpr const char* what = "mkldnn::_convolution_pointwise.binary";
  require_cpu(what, {X.raw(), other.raw(), W.raw()});
  if (B) require_cpu(what, {B->raw()});
  return Tensor(abi::mkldnn::convolution_pointwise_binary(X.raw(), other.raw(), W.raw(), raw(B),
                                                          padding, stride, dilation, groups,
                                                          binary_attr, unary(unary_attr), what));
}

void _convolution_pointwise_binary_(MutableTensor other, TensorArg X, TensorArg W,
                                    std::optional<TensorArg> B, IntList padding, IntList stride,
                                    IntList dilation, std::int64_t groups,
                                    std::string_view binary_attr,
                                    std::optional<std::string_view> unary_attr) {
  constexpr const char* what = "mkldnn::_convolution_pointwise_.binary";
  require_cpu(what, {other.raw(), X.raw(), W.raw()});
  if (B) require_cpu(what, {B->raw()});
  op::check_mutation(other, what, {X, W, B});
  abi::mkldnn::convolution_pointwise_binary_(other.raw(), X.raw(), W.raw(), raw(B), padding, stride,
                                             dilation, groups, binary_attr, unary(unary_attr),
                                             what);
}

Tensor _convolution_transpose_pointwise(TensorArg X, TensorArg W, std::optional<TensorArg> B,
                                        IntList padding, IntList output_padding, IntList stride,
                                        IntList dilation, std::int64_t groups, const PostOp& post) {
  constexpr const char* what = "mkldnn::_convolution_transpose_pointwise";
  require_cpu(what, {X.raw(), W.raw()});
  if (B) require_cpu(what, {B->raw()});
  return Tensor(abi::mkldnn::convolution_transpose_pointwise(X.raw(), W.raw(), raw(B), padding,
                                                             output_padding, stride, dilation,
                                                             groups, unary(post), what));
}

Tensor _linear_pointwise(TensorArg X, TensorArg W, std::optional<TensorArg> B, const PostOp& post) {
  constexpr const char* what = "mkldnn::_linear_pointwise";
  require_cpu(what, {X.raw(), W.raw()});
  if (B) require_cpu(what, {B->raw()});
  return Tensor(abi::mkldnn::linear_pointwise(X.raw(), W.raw(), raw(B), unary(post), what));
}

Tensor _linear_pointwise_binary(TensorArg X, TensorArg other, TensorArg W,
                                std::optional<TensorArg> B, std::string_view attr) {
  constexpr const char* what = "mkldnn::_linear_pointwise.binary";
  require_cpu(what, {X.raw(), other.raw(), W.raw()});
  if (B) require_cpu(what, {B->raw()});
  return Tensor(
      abi::mkldnn::linear_pointwise_binary(X.raw(), other.raw(), W.raw(), raw(B), attr, what));
}

}  // namespace fp::aten::mkldnn
