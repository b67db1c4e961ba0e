// The plans optimize_for_inference gives layers (plan.h): a convolution or
// linear layer run through oneDNN's fused kernels, and the layers folded
// into one before them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "flash_powder/aten/mkldnn.h"
#include "flash_powder/nn/layers/containers.h"
#include "plan.h"

namespace fp::nn::detail {

/// A BatchNorm folded into the convolution before it, or an activation
/// fused with it: that layer's plan did its work, so it passes its input on.
class PassThroughPlan final : public InferencePlan {
 public:
  explicit PassThroughPlan(std::shared_ptr<const InferencePlan> into) : into_(std::move(into)) {}
  Tensor forward(TensorView input) const override { return input.to_owned(); }
  bool forward_in_place(Tensor& /*x*/) const override { return true; }
  /// The plan of the layer this one is folded into.
  const InferencePlan* into() const noexcept { return into_.get(); }

 private:
  std::shared_ptr<const InferencePlan> into_;
};

/// A fused kernel's fixed arguments: the weight (dense; a convolution's is
/// packed into oneDNN's layout on the first input, FusedPlan::weight), the
/// bias (undefined for none), the geometry of a convolution.
struct FusedKernel {
  enum class Kind { Convolution, TransposedConvolution, Linear };
  Kind kind = Kind::Convolution;
  Tensor weight;
  Tensor bias;
  std::vector<std::int64_t> padding{};
  std::vector<std::int64_t> output_padding{};
  std::vector<std::int64_t> stride{};
  std::vector<std::int64_t> dilation{};
  std::int64_t groups = 1;
  /// A convolution's output channels and kernel's spatial sizes.
  std::int64_t out_channels = 0;
  std::vector<std::int64_t> kernel_size{};
  /// The input's rank the kernel takes (convolutions: batched only).
  std::optional<std::int64_t> rank{};
  DType dtype = DType::F32;
};

/// Makes the layer a FusedPlan's eager path runs (a copy of the head, with
/// the folded weights).
using EagerFactory = std::function<std::unique_ptr<Module>()>;

/// A convolution or linear layer, with a BatchNorm folded in and an
/// activation fused, as oneDNN's kernel where the input suits it (a
/// strided CPU tensor of the kernel's dtype and rank) and as the eager
/// path (the layer with the folded weights, then the activation, on ATen's
/// kernels) for any other input, which then gets ATen's own result or
/// error. The eager layer is made on the first input that needs it: most
/// models never do, and its folded weights would otherwise stay in memory
/// beside the packed ones. A convolution's weight is packed on the first
/// input the kernel takes, for that input's sizes, as Inductor's freezing
/// packs it for the example input's: oneDNN picks the packed layout by the
/// input's shape, and a layout picked without it can make the kernel
/// reorder the weight on every call (a 1x1 convolution from 256 to 1024
/// channels on 14x14 took 16 times as long with two threads). Inputs of
/// other sizes run with the same packed weight.
class FusedPlan final : public InferencePlan {
 public:
  FusedPlan(std::optional<FusedKernel> kernel, aten::mkldnn::PostOp post, EagerFactory make_eager,
            std::unique_ptr<Module> eager_activation, bool folds_norm)
      : kernel_(std::move(kernel)),
        post_(std::move(post)),
        make_eager_(std::move(make_eager)),
        eager_activation_(std::move(eager_activation)),
        folds_norm_(folds_norm) {
    if (kernel_ && kernel_->kind == FusedKernel::Kind::Convolution)
      dense_weight_ = std::move(kernel_->weight);
  }

  Tensor forward(TensorView input) const override;
  bool forward_in_place(Tensor& /*x*/) const override { return false; }
  bool folded(const InferencePlan& other) const override;

  /// For conv_add: `other = relu?(conv(input) + other)` in one oneDNN
  /// convolution, when this is a convolution with no activation fused and
  /// `input` and `other` suit the kernel; returns false (nothing done) else.
  bool add_into(TensorView input, Tensor& other, bool relu) const;

 private:
  bool takes(TensorView input) const;
  Tensor eager(TensorView input) const;
  /// The kernel's weight for `input` (a convolution's packed on first use).
  const Tensor& weight(TensorView input) const;

  std::optional<FusedKernel> kernel_;
  aten::mkldnn::PostOp post_;
  EagerFactory make_eager_;
  std::unique_ptr<Module> eager_activation_;
  bool folds_norm_;
  // The eager layer, made on first use; once only, as several threads may
  // run an optimised model at the same time.
  mutable std::once_flag eager_made_;
  mutable std::unique_ptr<Module> eager_layer_;
  // A convolution's packed weight, made on first use from the dense one,
  // which it then replaces.
  mutable std::once_flag weight_packed_;
  mutable Tensor packed_weight_;
  mutable Tensor dense_weight_;
};

}  // namespace fp::nn::detail
