// Pooling layers: torch.nn.MaxPool1d/2d/3d, AvgPool1d/2d/3d,
// AdaptiveAvgPool1d/2d/3d, AdaptiveMaxPool1d/2d/3d, LPPool1d/2d/3d,
// MaxUnpool1d/2d/3d and FractionalMaxPool2d/3d.
// https://pytorch.org/docs/stable/nn.html#pooling-layers
//
//     fp::nn::MaxPool2d pool(2, {.return_indices = true});
//     fp::nn::MaxUnpool2d unpool(2);
//     auto [values, indices] = pool.forward_with_indices(x);
//     fp::Tensor back = unpool(values, indices);
//
// Each applies the fp::functional function of the same name (see there for
// exactness notes). Made with `.return_indices = true`, the max pools return
// values and indices from forward_with_indices(); forward() then throws,
// since it returns one tensor. Only FractionalMaxPool has state: its
// `_random_samples` buffer, when given.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>

#include "flash_powder/core/array_ref.h"
#include "flash_powder/nn/define.h"
#include "flash_powder/nn/module.h"
#include "flash_powder/nn/options.h"

namespace fp::nn {

// --- MaxPool ----------------------------------------------------------------------------

template <std::size_t N>
struct MaxPoolOptions {
  /// Defaults to the kernel size.
  OptionalExpandingArray<N> stride{};
  /// Implicit negative-infinity padding on both sides.
  ExpandingArray<N> padding = 0;
  /// The spacing between kernel elements.
  ExpandingArray<N> dilation = 1;
  /// Python's forward then returns (maxima, indices): here forward() throws
  /// fp::Error and forward_with_indices() returns both (C++ cannot change a
  /// return type at run time).
  bool return_indices = false;
  /// Round the output size up instead of down.
  bool ceil_mode = false;
};
/// MaxPool1d's keyword arguments.
using MaxPool1dOptions = MaxPoolOptions<1>;
/// MaxPool2d's keyword arguments.
using MaxPool2dOptions = MaxPoolOptions<2>;
using MaxPool3dOptions = MaxPoolOptions<3>;

namespace detail {
/// What MaxPool1d/2d/3d share; use those.
template <std::size_t N>
class MaxPoolNd : public Module {
 public:
  explicit MaxPoolNd(ExpandingArray<N> kernel_size, const MaxPoolOptions<N>& options = {})
      : kernel_size(kernel_size), options(options) {}
  Tensor forward(TensorView input) const override;
  std::tuple<Tensor, Tensor> forward_with_indices(TensorView input) const;

  ExpandingArray<N> kernel_size;
  MaxPoolOptions<N> options;
};
}  // namespace detail

/// https://pytorch.org/docs/stable/generated/torch.nn.MaxPool1d.html
class MaxPool1d : public detail::MaxPoolNd<1> {
 public:
  using MaxPoolNd::MaxPoolNd;
};
/// https://pytorch.org/docs/stable/generated/torch.nn.MaxPool2d.html
class MaxPool2d : public detail::MaxPoolNd<2> {
 public:
  using MaxPoolNd::MaxPoolNd;
};
/// https://pytorch.org/docs/stable/generated/torch.nn.MaxPool3d.html
class MaxPool3d : public detail::MaxPoolNd<3> {
 public:
  using MaxPoolNd::MaxPoolNd;
};

// --- AvgPool ----------------------------------------------------------------------------

/// AvgPool1d's keywords (it has no divisor_override, as in Python).
struct AvgPool1dOptions {
  /// Defaults to the kernel size.
  OptionalExpandingArray<1> stride{};
  ExpandingArray<1> padding = 0;
  bool ceil_mode = false;
  bool count_include_pad = true;
};

/// AvgPool2d's and AvgPool3d's keywords.
template <std::size_t N>
struct AvgPoolOptions {
  /// Defaults to the kernel size.
  OptionalExpandingArray<N> stride{};
  ExpandingArray<N> padding = 0;
  bool ceil_mode = false;
  /// Count the padding in the average's divisor.
  bool count_include_pad = true;
  /// Divide by this instead of the window's size.
  std::optional<std::int64_t> divisor_override{};
};
using AvgPool2dOptions = AvgPoolOptions<2>;
using AvgPool3dOptions = AvgPoolOptions<3>;

namespace detail {
template <std::size_t N>
struct AvgPoolOptionsOf {
  using type = AvgPoolOptions<N>;
};
template <>
struct AvgPoolOptionsOf<1> {
  using type = AvgPool1dOptions;
};

/// What AvgPool1d/2d/3d share; use those.
template <std::size_t N>
class AvgPoolNd : public Module {
 public:
  using Options = typename AvgPoolOptionsOf<N>::type;
  explicit AvgPoolNd(ExpandingArray<N> kernel_size, const Options& options = {})
      : kernel_size(kernel_size), options(options) {}
  Tensor forward(TensorView input) const override;

  ExpandingArray<N> kernel_size;
  Options options;
};
}  // namespace detail

/// https://pytorch.org/docs/stable/generated/torch.nn.AvgPool1d.html
class AvgPool1d : public detail::AvgPoolNd<1> {
 public:
  using AvgPoolNd::AvgPoolNd;
};
/// https://pytorch.org/docs/stable/generated/torch.nn.AvgPool2d.html
class AvgPool2d : public detail::AvgPoolNd<2> {
 public:
  using AvgPoolNd::AvgPoolNd;
};
/// No float16 or bfloat16 on the CPU, as in Python.
/// https://pytorch.org/docs/stable/generated/torch.nn.AvgPool3d.html
class AvgPool3d : public detail::AvgPoolNd<3> {
 public:
  using AvgPoolNd::AvgPoolNd;
};

// --- Adaptive pooling -------------------------------------------------------------------

struct AdaptiveMaxPoolOptions {
  bool return_indices = false;
};
using AdaptiveMaxPool1dOptions = AdaptiveMaxPoolOptions;
using AdaptiveMaxPool2dOptions = AdaptiveMaxPoolOptions;
using AdaptiveMaxPool3dOptions = AdaptiveMaxPoolOptions;

namespace detail {
/// The output size of adaptive pooling: numbers for 1d (as in Python),
/// else numbers or std::nullopt (keep the input's size) per dimension.
template <std::size_t N>
struct AdaptiveSizeOf {
  using type = OutputSize<N>;
};
template <>
struct AdaptiveSizeOf<1> {
  using type = ExpandingArray<1>;
};
template <std::size_t N>
using AdaptiveSize = typename AdaptiveSizeOf<N>::type;

/// What AdaptiveAvgPool1d/2d/3d share; use those.
template <std::size_t N>
class AdaptiveAvgPoolNd : public Module {
 public:
  explicit AdaptiveAvgPoolNd(AdaptiveSize<N> output_size) : output_size(output_size) {}
  Tensor forward(TensorView input) const override;
  AdaptiveSize<N> output_size;
};

/// What AdaptiveMaxPool1d/2d/3d share; use those.
template <std::size_t N>
class AdaptiveMaxPoolNd : public Module {
 public:
  explicit AdaptiveMaxPoolNd(AdaptiveSize<N> output_size,
                             const AdaptiveMaxPoolOptions& options = {})
      : output_size(output_size), options(options) {}
  Tensor forward(TensorView input) const override;
  /// The maxima and their flat indices within each input plane (int64).
  std::tuple<Tensor, Tensor> forward_with_indices(TensorView input) const;
  AdaptiveSize<N> output_size;
  AdaptiveMaxPoolOptions options;
};
}  // namespace detail

/// https://pytorch.org/docs/stable/generated/torch.nn.AdaptiveAvgPool1d.html
class AdaptiveAvgPool1d : public detail::AdaptiveAvgPoolNd<1> {
 public:
  using AdaptiveAvgPoolNd::AdaptiveAvgPoolNd;
};
/// `output_size` entries that are std::nullopt keep the input's size.
/// https://pytorch.org/docs/stable/generated/torch.nn.AdaptiveAvgPool2d.html
class AdaptiveAvgPool2d : public detail::AdaptiveAvgPoolNd<2> {
 public:
  using AdaptiveAvgPoolNd::AdaptiveAvgPoolNd;
};
/// https://pytorch.org/docs/stable/generated/torch.nn.AdaptiveAvgPool3d.html
class AdaptiveAvgPool3d : public detail::AdaptiveAvgPoolNd<3> {
 public:
  using AdaptiveAvgPoolNd::AdaptiveAvgPoolNd;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.AdaptiveMaxPool1d.html
class AdaptiveMaxPool1d : public detail::AdaptiveMaxPoolNd<1> {
 public:
  using AdaptiveMaxPoolNd::AdaptiveMaxPoolNd;
};
/// https://pytorch.org/docs/stable/generated/torch.nn.AdaptiveMaxPool2d.html
class AdaptiveMaxPool2d : public detail::AdaptiveMaxPoolNd<2> {
 public:
  using AdaptiveMaxPoolNd::AdaptiveMaxPoolNd;
};
/// https://pytorch.org/docs/stable/generated/torch.nn.AdaptiveMaxPool3d.html
class AdaptiveMaxPool3d : public detail::AdaptiveMaxPoolNd<3> {
 public:
  using AdaptiveMaxPoolNd::AdaptiveMaxPoolNd;
};

// --- LPPool -----------------------------------------------------------------------------

template <std::size_t N>
struct LPPoolOptions {
  /// Defaults to the kernel size.
  OptionalExpandingArray<N> stride{};
  bool ceil_mode = false;
};
using LPPool1dOptions = LPPoolOptions<1>;
using LPPool2dOptions = LPPoolOptions<2>;
using LPPool3dOptions = LPPoolOptions<3>;

namespace detail {
/// What LPPool1d/2d/3d share; use those.
template <std::size_t N>
class LPPoolNd : public Module {
 public:
  /// `norm_type` may be ±infinity (max pooling of |x|); 0 throws in forward, as in Python.
  LPPoolNd(double norm_type, ExpandingArray<N> kernel_size, const LPPoolOptions<N>& options = {})
      : norm_type(norm_type), kernel_size(kernel_size), options(options) {}
  Tensor forward(TensorView input) const override;

  double norm_type;
  ExpandingArray<N> kernel_size;
  LPPoolOptions<N> options;
};
}  // namespace detail

/// https://pytorch.org/docs/stable/generated/torch.nn.LPPool1d.html
class LPPool1d : public detail::LPPoolNd<1> {
 public:
  using LPPoolNd::LPPoolNd;
};
/// https://pytorch.org/docs/stable/generated/torch.nn.LPPool2d.html
class LPPool2d : public detail::LPPoolNd<2> {
 public:
  using LPPoolNd::LPPoolNd;
};
/// Finite norms not for float16 or bfloat16 on the CPU, as in Python (avg_pool3d).
/// https://pytorch.org/docs/stable/generated/torch.nn.LPPool3d.html
class LPPool3d : public detail::LPPoolNd<3> {
 public:
  using LPPoolNd::LPPoolNd;
};

// --- MaxUnpool --------------------------------------------------------------------------

template <std::size_t N>
struct MaxUnpoolOptions {
  /// Defaults to the kernel size.
  OptionalExpandingArray<N> stride{};
  ExpandingArray<N> padding = 0;
};
using MaxUnpool1dOptions = MaxUnpoolOptions<1>;
using MaxUnpool2dOptions = MaxUnpoolOptions<2>;
using MaxUnpool3dOptions = MaxUnpoolOptions<3>;

namespace detail {
/// What MaxUnpool1d/2d/3d share; use those.
template <std::size_t N>
class MaxUnpoolNd : public ModuleBase {
 public:
  explicit MaxUnpoolNd(ExpandingArray<N> kernel_size, const MaxUnpoolOptions<N>& options = {})
      : kernel_size(kernel_size), options(options) {}
  /// `indices` as the max pool's forward_with_indices returns them.
  Tensor forward(TensorView input, TensorView indices) const;
  /// Python's `forward(input, indices, output_size)`: N sizes, or N + 2 with
  /// batch and channels first (see fp::functional::MaxUnpoolOptions).
  Tensor forward(TensorView input, TensorView indices, IntList output_size) const;
  FP_MODULE_CALL()

  ExpandingArray<N> kernel_size;
  MaxUnpoolOptions<N> options;
};
}  // namespace detail

/// https://pytorch.org/docs/stable/generated/torch.nn.MaxUnpool1d.html
class MaxUnpool1d : public detail::MaxUnpoolNd<1> {
 public:
  using MaxUnpoolNd::MaxUnpoolNd;
};
/// https://pytorch.org/docs/stable/generated/torch.nn.MaxUnpool2d.html
class MaxUnpool2d : public detail::MaxUnpoolNd<2> {
 public:
  using MaxUnpoolNd::MaxUnpoolNd;
};
/// https://pytorch.org/docs/stable/generated/torch.nn.MaxUnpool3d.html
class MaxUnpool3d : public detail::MaxUnpoolNd<3> {
 public:
  using MaxUnpoolNd::MaxUnpoolNd;
};

// --- FractionalMaxPool ------------------------------------------------------------------

template <std::size_t N>
struct FractionalMaxPoolOptions {
  /// The output's spatial size; or
  OptionalExpandingArray<N> output_size{};
  /// the fraction of the input's to keep, each in (0, 1). Exactly one of the two.
  OptionalExpandingArray<N, double> output_ratio{};
  bool return_indices = false;
  /// Python's `_random_samples` ([batch, channels, N], the input's dtype):
  /// copied into the layer's buffer "_random_samples", which every forward
  /// uses. When absent, each forward draws new samples (see
  /// fp::functional::fractional_max_pool2d).
  std::optional<TensorView> random_samples{};
};
using FractionalMaxPool2dOptions = FractionalMaxPoolOptions<2>;
using FractionalMaxPool3dOptions = FractionalMaxPoolOptions<3>;

namespace detail {
/// What FractionalMaxPool2d/3d share; use those.
template <std::size_t N>
class FractionalMaxPoolNd : public Module {
 public:
  /// Throws fp::Error (with Python's message) unless exactly one of
  /// output_size and output_ratio is given, for a ratio outside (0, 1) and
  /// for a kernel size below 1.
  FractionalMaxPoolNd(ExpandingArray<N> kernel_size, const FractionalMaxPoolOptions<N>& options);

  void visit(Visitor& visitor) override;
  Tensor forward(TensorView input) const override;
  std::tuple<Tensor, Tensor> forward_with_indices(TensorView input) const;

  ExpandingArray<N> kernel_size;
  /// As given, without random_samples (held in `random_samples` below).
  FractionalMaxPoolOptions<N> options;
  /// The buffer "_random_samples"; undefined (not in the state dict) when not given.
  Tensor random_samples;
};
}  // namespace detail

/// https://pytorch.org/docs/stable/generated/torch.nn.FractionalMaxPool2d.html
class FractionalMaxPool2d : public detail::FractionalMaxPoolNd<2> {
 public:
  using FractionalMaxPoolNd::FractionalMaxPoolNd;
};
/// https://pytorch.org/docs/stable/generated/torch.nn.FractionalMaxPool3d.html
class FractionalMaxPool3d : public detail::FractionalMaxPoolNd<3> {
 public:
  using FractionalMaxPoolNd::FractionalMaxPoolNd;
};

}  // namespace fp::nn
