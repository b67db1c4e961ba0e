// The oneDNN shims (mkldnn_shims.h), looked up in the loaded libtorch.
#include "mkldnn_shims.h"

#include <dlfcn.h>

#include <string>
#include <vector>

#include "flash_powder/abi/runtime.h"
#include "no_grad.h"
#include "torch_c.h"

namespace fp::abi::mkldnn {
namespace {

using Ints = const std::int64_t*;
using Scalars = const double**;

// The signatures of torch/csrc/inductor/aoti_torch/c/shim_cpu.h (unchanged
// from torch 2.11 to 2.15). That header cannot be included here: it includes
// ATen/Config.h, which refuses a build that targets a stable-ABI version.
using ConvolutionPointwise = AOTITorchError(RawTensor, RawTensor, RawTensor*, Ints, std::int64_t,
                                            Ints, std::int64_t, Ints, std::int64_t, std::int64_t,
                                            const char*, Scalars, std::int64_t, const char**,
                                            RawTensor*);
using ConvolutionPointwiseBinary = AOTITorchError(RawTensor, RawTensor, RawTensor, RawTensor*, Ints,
                                                  std::int64_t, Ints, std::int64_t, Ints,
                                                  std::int64_t, std::int64_t, const char*, double*,
                                                  const char**, Scalars, std::int64_t, const char**,
                                                  RawTensor*);
using ConvolutionTransposePointwise = AOTITorchError(RawTensor, RawTensor, RawTensor*, Ints,
                                                     std::int64_t, Ints, std::int64_t, Ints,
                                                     std::int64_t, Ints, std::int64_t, std::int64_t,
                                                     const char*, Scalars, std::int64_t,
                                                     const char**, RawTensor*);
using LinearPointwise = AOTITorchError(RawTensor, RawTensor, RawTensor*, const char*, Scalars,
                                       std::int64_t, const char**, RawTensor*);
using LinearPointwiseBinary = AOTITorchError(RawTensor, RawTensor, RawTensor, RawTensor*,
                                             const char*, RawTensor*);

template <class Function>
Function* lookup(const char* symbol) {
  // RTLD_DEFAULT searches every library already loaded, libtorch_cpu among them.
  return reinterpret_cast<Function*>(dlsym(RTLD_DEFAULT, symbol));
}

struct Shims {
  ConvolutionPointwise* convolution =
      lookup<ConvolutionPointwise>("aoti_torch_cpu_mkldnn__convolution_pointwise");
  ConvolutionPointwiseBinary* convolution_binary =
      lookup<ConvolutionPointwiseBinary>("aoti_torch_cpu_mkldnn__convolution_pointwise_binary");
  ConvolutionPointwiseBinary* convolution_binary_ =
      lookup<ConvolutionPointwiseBinary>("aoti_torch_cpu_mkldnn__convolution_pointwise_binary_");
  ConvolutionTransposePointwise* convolution_transpose = lookup<ConvolutionTransposePointwise>(
      "aoti_torch_cpu_mkldnn__convolution_transpose_pointwise");
  LinearPointwise* linear = lookup<LinearPointwise>("aoti_torch_cpu__linear_pointwise");
  LinearPointwiseBinary* linear_binary =
      lookup<LinearPointwiseBinary>("aoti_torch_cpu__linear_pointwise_binary");

  bool complete() const noexcept {
    return convolution != nullptr && convolution_binary != nullptr &&
           convolution_binary_ != nullptr && convolution_transpose != nullptr &&
           linear != nullptr && linear_binary != nullptr;
  }
};

const Shims& shims() {
  static const Shims found;
  return found;
}

/// The shims, or ErrorCode::UnsupportedByTorch naming `what`.
const Shims& require(std::string_view what) {
  const Shims& found = shims();
  if (!found.complete()) {
    throw Error(ErrorCode::UnsupportedByTorch,
                std::string(what) + ": the loaded torch " + torch_version().str() +
                    " has no oneDNN (mkldnn) C shims (a build without oneDNN); "
                    "run the module without fp::nn::optimize_for_inference");
  }
  return found;
}

/// A Unary's C form: NUL-terminated strings and pointers to the scalars,
/// alive as long as it is.
class UnaryArgs {
 public:
  explicit UnaryArgs(const Unary& unary)
      : attr_(unary.attr),
        algorithm_(unary.algorithm.value_or("")),
        has_algorithm_(unary.algorithm.has_value()) {
    values_.reserve(unary.scalars.size());
    for (const auto& scalar : unary.scalars)
      values_.push_back(scalar.value_or(0.0));
    for (std::size_t i = 0; i < unary.scalars.size(); ++i)
      pointers_.push_back(unary.scalars[i] ? &values_[i] : nullptr);
    attr_pointer_ = attr_.c_str();
    algorithm_pointer_ = algorithm_.c_str();
  }
  UnaryArgs(const UnaryArgs&) = delete;
  UnaryArgs& operator=(const UnaryArgs&) = delete;
  ~UnaryArgs() = default;

  const char* attr() const { return attr_.c_str(); }
  /// The attribute as the binary shims' optional string: null for "none".
  const char** optional_attr() { return attr_ == "none" ? nullptr : &attr_pointer_; }
  Scalars scalars() { return pointers_.data(); }
  std::int64_t scalar_count() const { return static_cast<std::int64_t>(pointers_.size()); }
  /// Null for None (the C shims' optional string).
  const char** algorithm() { return has_algorithm_ ? &algorithm_pointer_ : nullptr; }

 private:
  std::string attr_;
  std::string algorithm_;
  bool has_algorithm_;
  const char* attr_pointer_ = nullptr;
  const char* algorithm_pointer_ = nullptr;
  std::vector<double> values_;
  std::vector<const double*> pointers_;
};

std::int64_t length(std::span<const std::int64_t> values) {
  return static_cast<std::int64_t>(values.size());
}

/// The C shims' optional tensor: a pointer to the handle, or null for None.
RawTensor* optional(RawTensor& tensor) {
  return tensor != nullptr ? &tensor : nullptr;
}

}  // namespace

bool available() noexcept {
  try {
    return shims().complete();
  } catch (...) {
    return false;
  }
}

std::optional<std::size_t> first_not_on_cpu(std::initializer_list<RawTensor> tensors) noexcept {
  std::size_t position = 0;
  for (RawTensor tensor : tensors) {
    try {
      if (tensor == nullptr || !is_defined(tensor) || device(tensor).type != DeviceType::CPU)
        return position;
    } catch (...) {
      return position;
    }
    ++position;
  }
  return std::nullopt;
}

TensorHandle convolution_pointwise(RawTensor input, RawTensor weight, RawTensor bias,
                                   std::span<const std::int64_t> padding,
                                   std::span<const std::int64_t> stride,
                                   std::span<const std::int64_t> dilation, std::int64_t groups,
                                   const Unary& unary, std::string_view what) {
  const Shims& found = require(what);
  UnaryArgs args(unary);
  const NoGradScope no_grad;
  RawTensor result = nullptr;
  check(found.convolution(input, weight, optional(bias), padding.data(), length(padding),
                          stride.data(), length(stride), dilation.data(), length(dilation), groups,
                          args.attr(), args.scalars(), args.scalar_count(), args.algorithm(),
                          &result),
        what);
  return TensorHandle(result);
}

TensorHandle convolution_pointwise_binary(RawTensor input, RawTensor other, RawTensor weight,
                                          RawTensor bias, std::span<const std::int64_t> padding,
                                          std::span<const std::int64_t> stride,
                                          std::span<const std::int64_t> dilation,
                                          std::int64_t groups, std::string_view binary_attr,
                                          const Unary& unary, std::string_view what) {
  const Shims& found = require(what);
  UnaryArgs args(unary);
  const std::string binary(binary_attr);
  const NoGradScope no_grad;
  RawTensor result = nullptr;
  check(found.convolution_binary(
            input, other, weight, optional(bias), padding.data(), length(padding), stride.data(),
            length(stride), dilation.data(), length(dilation), groups, binary.c_str(), nullptr,
            args.optional_attr(), args.scalars(), args.scalar_count(), args.algorithm(), &result),
        what);
  return TensorHandle(result);
}

void convolution_pointwise_binary_(RawTensor other, RawTensor input, RawTensor weight,
                                   RawTensor bias, std::span<const std::int64_t> padding,
                                   std::span<const std::int64_t> stride,
                                   std::span<const std::int64_t> dilation, std::int64_t groups,
                                   std::string_view binary_attr, const Unary& unary,
                                   std::string_view what) {
  const Shims& found = require(what);
  UnaryArgs args(unary);
  const std::string binary(binary_attr);
  const NoGradScope no_grad;
  // The shim returns `other` itself as a new handle.
  RawTensor result = nullptr;
  check(found.convolution_binary_(
            other, input, weight, optional(bias), padding.data(), length(padding), stride.data(),
            length(stride), dilation.data(), length(dilation), groups, binary.c_str(), nullptr,
            args.optional_attr(), args.scalars(), args.scalar_count(), args.algorithm(), &result),
        what);
  const TensorHandle same(result);
}

TensorHandle convolution_transpose_pointwise(RawTensor input, RawTensor weight, RawTensor bias,
                                             std::span<const std::int64_t> padding,
                                             std::span<const std::int64_t> output_padding,
                                             std::span<const std::int64_t> stride,
                                             std::span<const std::int64_t> dilation,
                                             std::int64_t groups, const Unary& unary,
                                             std::string_view what) {
  const Shims& found = require(what);
  UnaryArgs args(unary);
  const NoGradScope no_grad;
  RawTensor result = nullptr;
  check(found.convolution_transpose(input, weight, optional(bias), padding.data(), length(padding),
                                    output_padding.data(), length(output_padding), stride.data(),
                                    length(stride), dilation.data(), length(dilation), groups,
                                    args.attr(), args.scalars(), args.scalar_count(),
                                    args.algorithm(), &result),
        what);
  return TensorHandle(result);
}

TensorHandle linear_pointwise(RawTensor input, RawTensor weight, RawTensor bias, const Unary& unary,
                              std::string_view what) {
  const Shims& found = require(what);
  UnaryArgs args(unary);
  const NoGradScope no_grad;
  RawTensor result = nullptr;
  check(found.linear(input, weight, optional(bias), args.attr(), args.scalars(),
                     args.scalar_count(), args.algorithm(), &result),
        what);
  return TensorHandle(result);
}

TensorHandle linear_pointwise_binary(RawTensor input, RawTensor other, RawTensor weight,
                                     RawTensor bias, std::string_view binary_attr,
                                     std::string_view what) {
  const Shims& found = require(what);
  const std::string binary(binary_attr);
  const NoGradScope no_grad;
  RawTensor result = nullptr;
  check(found.linear_binary(input, other, weight, optional(bias), binary.c_str(), &result), what);
  return TensorHandle(result);
}

}  // namespace fp::abi::mkldnn
