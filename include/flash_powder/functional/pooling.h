// Pooling: torch.nn.functional.max_pool1d/2d/3d, avg_pool1d/2d/3d,
// adaptive_{max,avg}_pool1d/2d/3d, lp_pool1d/2d/3d, max_unpool1d/2d/3d and
// fractional_max_pool2d/3d.
// https://pytorch.org/docs/stable/nn.functional.html#pooling-functions
//
//     fp::Tensor y = fp::functional::max_pool2d(x, 2);                 // stride = kernel
//     auto [values, indices] = fp::functional::max_pool2d_with_indices(x, 3, {.stride = 2});
//     fp::Tensor back = fp::functional::max_unpool2d(values, indices, 3, {.stride = 2});
//
// Python's `return_indices=True` is spelled `*_with_indices` here, so that
// each function has one return type. Inputs may be batched or not, as in
// Python. Each returns new Tensors, bit-exact with Python.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>

#include "flash_powder/core/generator.h"
#include "flash_powder/core/tensor.h"
#include "flash_powder/nn/options.h"

namespace fp::functional {

// --- max_pool ---------------------------------------------------------------------------

/// The keyword arguments of max_pool1d/2d/3d, with PyTorch's defaults.
template <std::size_t N>
struct MaxPoolOptions {
  /// Defaults to the kernel size (Python's stride=None).
  nn::OptionalExpandingArray<N> stride{};
  /// Implicit negative-infinity padding on both sides.
  nn::ExpandingArray<N> padding = 0;
  /// The spacing between kernel elements.
  nn::ExpandingArray<N> dilation = 1;
  /// Round the output size up instead of down.
  bool ceil_mode = false;
};
/// max_pool1d's keyword arguments.
using MaxPool1dOptions = MaxPoolOptions<1>;
/// max_pool2d's keyword arguments.
using MaxPool2dOptions = MaxPoolOptions<2>;
/// max_pool3d's keyword arguments.
using MaxPool3dOptions = MaxPoolOptions<3>;

/// https://pytorch.org/docs/stable/generated/torch.nn.functional.max_pool1d.html
Tensor max_pool1d(const TensorView& input, nn::ExpandingArray<1> kernel_size,
                  const MaxPool1dOptions& options = {});
/// The maxima and their flat indices within each input plane (int64).
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const TensorView& input,
                                                   nn::ExpandingArray<1> kernel_size,
                                                   const MaxPool1dOptions& options = {});
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.max_pool2d.html
Tensor max_pool2d(const TensorView& input, nn::ExpandingArray<2> kernel_size,
                  const MaxPool2dOptions& options = {});
/// The maxima and their flat indices within each input plane (int64).
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const TensorView& input,
                                                   nn::ExpandingArray<2> kernel_size,
                                                   const MaxPool2dOptions& options = {});
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.max_pool3d.html
Tensor max_pool3d(const TensorView& input, nn::ExpandingArray<3> kernel_size,
                  const MaxPool3dOptions& options = {});
/// The maxima and their flat indices within each input volume (int64).
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const TensorView& input,
                                                   nn::ExpandingArray<3> kernel_size,
                                                   const MaxPool3dOptions& options = {});

// --- avg_pool ---------------------------------------------------------------------------

/// avg_pool1d's keywords (it has no divisor_override, as in Python).
struct AvgPool1dOptions {
  /// Defaults to the kernel size (Python's stride=None).
  nn::OptionalExpandingArray<1> stride{};
  /// Implicit zero padding on both sides.
  nn::ExpandingArray<1> padding = 0;
  /// Round the output size up instead of down.
  bool ceil_mode = false;
  /// Count the padding in the average's divisor.
  bool count_include_pad = true;
};

/// avg_pool2d's and avg_pool3d's keywords.
template <std::size_t N>
struct AvgPoolOptions {
  /// Defaults to the kernel size (Python's stride=None).
  nn::OptionalExpandingArray<N> stride{};
  /// Implicit zero padding on both sides.
  nn::ExpandingArray<N> padding = 0;
  /// Round the output size up instead of down.
  bool ceil_mode = false;
  /// Count the padding in the average's divisor.
  bool count_include_pad = true;
  /// Divide by this instead of the window's size.
  std::optional<std::int64_t> divisor_override{};
};
/// avg_pool2d's keyword arguments.
using AvgPool2dOptions = AvgPoolOptions<2>;
/// avg_pool3d's keyword arguments.
using AvgPool3dOptions = AvgPoolOptions<3>;

/// https://pytorch.org/docs/stable/generated/torch.nn.functional.avg_pool1d.html
Tensor avg_pool1d(const TensorView& input, nn::ExpandingArray<1> kernel_size,
                  const AvgPool1dOptions& options = {});
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.avg_pool2d.html
Tensor avg_pool2d(const TensorView& input, nn::ExpandingArray<2> kernel_size,
                  const AvgPool2dOptions& options = {});
/// PyTorch's CPU kernel has no float16 or bfloat16 (fp::Error, as in Python).
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.avg_pool3d.html
Tensor avg_pool3d(const TensorView& input, nn::ExpandingArray<3> kernel_size,
                  const AvgPool3dOptions& options = {});

// --- adaptive pooling -------------------------------------------------------------------

/// https://pytorch.org/docs/stable/generated/torch.nn.functional.adaptive_avg_pool1d.html
Tensor adaptive_avg_pool1d(const TensorView& input, nn::ExpandingArray<1> output_size);
/// `output_size` entries that are std::nullopt keep the input's size.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.adaptive_avg_pool2d.html
Tensor adaptive_avg_pool2d(const TensorView& input, const nn::OutputSize<2>& output_size);
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.adaptive_avg_pool3d.html
Tensor adaptive_avg_pool3d(const TensorView& input, const nn::OutputSize<3>& output_size);

/// https://pytorch.org/docs/stable/generated/torch.nn.functional.adaptive_max_pool1d.html
Tensor adaptive_max_pool1d(const TensorView& input, nn::ExpandingArray<1> output_size);
/// The maxima and their flat indices within each input plane (int64).
std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const TensorView& input,
                                                            nn::ExpandingArray<1> output_size);
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.adaptive_max_pool2d.html
Tensor adaptive_max_pool2d(const TensorView& input, const nn::OutputSize<2>& output_size);
/// The maxima and their flat indices within each input plane (int64).
std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const TensorView& input,
                                                            const nn::OutputSize<2>& output_size);
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.adaptive_max_pool3d.html
Tensor adaptive_max_pool3d(const TensorView& input, const nn::OutputSize<3>& output_size);
/// The maxima and their flat indices within each input volume (int64).
std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(const TensorView& input,
                                                            const nn::OutputSize<3>& output_size);

// --- lp_pool ----------------------------------------------------------------------------

/// The keyword arguments of lp_pool1d/2d/3d, with PyTorch's defaults.
template <std::size_t N>
struct LPPoolOptions {
  /// Defaults to the kernel size (Python's stride=None).
  nn::OptionalExpandingArray<N> stride{};
  /// Round the output size up instead of down.
  bool ceil_mode = false;
};
/// lp_pool1d's keyword arguments.
using LPPool1dOptions = LPPoolOptions<1>;
/// lp_pool2d's keyword arguments.
using LPPool2dOptions = LPPoolOptions<2>;
/// lp_pool3d's keyword arguments.
using LPPool3dOptions = LPPoolOptions<3>;

/// The p-norm of each window: Python's `(sum(x^p) over the window)^(1/p)`,
/// computed as Python does (avg_pool of x^p times the kernel's size), with
/// its sign handling; `norm_type` = ±infinity is the max_pool of |x| (of
/// -|x|, negated), as torch 2.13 and later compute it on any loaded torch
/// (earlier releases raise |x| to the infinite power). `norm_type` is a Python float, as nn.LPPool1d passes it
/// (an integer tensor's x^p is float32 then); 0 throws fp::Error (Python's
/// ZeroDivisionError). CPU and CUDA tensors only: its x^p takes a Scalar,
/// which reaches libtorch through fp::aten::shim.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.lp_pool1d.html
Tensor lp_pool1d(const TensorView& input, double norm_type, nn::ExpandingArray<1> kernel_size,
                 const LPPool1dOptions& options = {});
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.lp_pool2d.html
Tensor lp_pool2d(const TensorView& input, double norm_type, nn::ExpandingArray<2> kernel_size,
                 const LPPool2dOptions& options = {});
/// Finite norms not for float16 or bfloat16 on the CPU, as in Python (avg_pool3d).
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.lp_pool3d.html
Tensor lp_pool3d(const TensorView& input, double norm_type, nn::ExpandingArray<3> kernel_size,
                 const LPPool3dOptions& options = {});

// --- max_unpool -------------------------------------------------------------------------

/// The keyword arguments of max_unpool1d/2d/3d, with PyTorch's defaults.
template <std::size_t N>
struct MaxUnpoolOptions {
  /// Defaults to the kernel size (Python's stride=None).
  nn::OptionalExpandingArray<N> stride{};
  /// The padding the max pool was given (the default output size subtracts it).
  nn::ExpandingArray<N> padding = 0;
  /// The output's spatial sizes (N values, or N + 2 with batch and channels
  /// first, whose first two are ignored as in Python), each within the
  /// stride of the default, `(in - 1) * stride + kernel - 2 * padding`,
  /// which is used when absent. A list even for N = 1, as in Python.
  nn::PerDimension<std::int64_t> output_size{};
};
/// max_unpool1d's keyword arguments.
using MaxUnpool1dOptions = MaxUnpoolOptions<1>;
/// max_unpool2d's keyword arguments.
using MaxUnpool2dOptions = MaxUnpoolOptions<2>;
/// max_unpool3d's keyword arguments.
using MaxUnpool3dOptions = MaxUnpoolOptions<3>;

/// The partial inverse of max_pool1d: each value of `input` written to the
/// place `indices` (from max_pool1d_with_indices) names, zeros elsewhere.
/// Throws fp::Error with Python's message for an output_size out of range.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.max_unpool1d.html
Tensor max_unpool1d(const TensorView& input, const TensorView& indices,
                    nn::ExpandingArray<1> kernel_size, const MaxUnpool1dOptions& options = {});
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.max_unpool2d.html
Tensor max_unpool2d(const TensorView& input, const TensorView& indices,
                    nn::ExpandingArray<2> kernel_size, const MaxUnpool2dOptions& options = {});
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.max_unpool3d.html
Tensor max_unpool3d(const TensorView& input, const TensorView& indices,
                    nn::ExpandingArray<3> kernel_size, const MaxUnpool3dOptions& options = {});

// --- fractional_max_pool ----------------------------------------------------------------

/// The keyword arguments of fractional_max_pool2d/3d.
template <std::size_t N>
struct FractionalMaxPoolOptions {
  /// The output's spatial size; or
  nn::OptionalExpandingArray<N> output_size{};
  /// the fraction of the input's to keep, `int(size * ratio)` as in Python.
  /// Exactly one of the two.
  nn::OptionalExpandingArray<N, double> output_ratio{};
  /// Python's `_random_samples`: [batch (1 if unbatched), channels, N] of the
  /// input's dtype, in [0, 1), which place the pooling windows. Drawn when absent.
  std::optional<TensorView> random_samples{};
};
/// fractional_max_pool2d's keyword arguments.
using FractionalMaxPool2dOptions = FractionalMaxPoolOptions<2>;
/// fractional_max_pool3d's keyword arguments.
using FractionalMaxPool3dOptions = FractionalMaxPoolOptions<3>;

/// Max pooling over windows placed pseudo-randomly. Without
/// `random_samples`, they are drawn as Python draws them (`torch.rand(batch,
/// channels, 2, dtype=input.dtype)`) from the generator that layers draw
/// their initial values from (fp::nn::manual_seed, Python's torch.manual_seed),
/// so after the same seed the result equals Python's bit for bit. The
/// samples are drawn on the CPU (see fp::Generator): on CUDA they equal what
/// Python draws for a CPU tensor, not its CUDA draws; give `random_samples`
/// to fix them.
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.fractional_max_pool2d.html
Tensor fractional_max_pool2d(const TensorView& input, nn::ExpandingArray<2> kernel_size,
                             const FractionalMaxPool2dOptions& options);
/// The same with the samples drawn from `generator` (Python:
/// `_random_samples=torch.rand(..., generator=generator, dtype=input.dtype)`).
Tensor fractional_max_pool2d(const TensorView& input, nn::ExpandingArray<2> kernel_size,
                             Generator& generator, const FractionalMaxPool2dOptions& options);
/// The maxima and their flat indices within each input plane (int64).
std::tuple<Tensor, Tensor> fractional_max_pool2d_with_indices(
    const TensorView& input, nn::ExpandingArray<2> kernel_size,
    const FractionalMaxPool2dOptions& options);
/// The same with the samples drawn from `generator`.
std::tuple<Tensor, Tensor> fractional_max_pool2d_with_indices(
    const TensorView& input, nn::ExpandingArray<2> kernel_size, Generator& generator,
    const FractionalMaxPool2dOptions& options);
/// fractional_max_pool2d's 3-D form: the samples are [batch, channels, 3].
/// https://pytorch.org/docs/stable/generated/torch.nn.functional.fractional_max_pool3d.html
Tensor fractional_max_pool3d(const TensorView& input, nn::ExpandingArray<3> kernel_size,
                             const FractionalMaxPool3dOptions& options);
/// The same with the samples drawn from `generator`.
Tensor fractional_max_pool3d(const TensorView& input, nn::ExpandingArray<3> kernel_size,
                             Generator& generator, const FractionalMaxPool3dOptions& options);
/// The maxima and their flat indices within each input volume (int64).
std::tuple<Tensor, Tensor> fractional_max_pool3d_with_indices(
    const TensorView& input, nn::ExpandingArray<3> kernel_size,
    const FractionalMaxPool3dOptions& options);
/// The same with the samples drawn from `generator`.
std::tuple<Tensor, Tensor> fractional_max_pool3d_with_indices(
    const TensorView& input, nn::ExpandingArray<3> kernel_size, Generator& generator,
    const FractionalMaxPool3dOptions& options);

}  // namespace fp::functional
