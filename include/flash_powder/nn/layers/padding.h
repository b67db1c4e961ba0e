// Padding layers: torch.nn.ZeroPad1d/2d/3d, ConstantPad1d/2d/3d,
// ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d and CircularPad1d/2d/3d.
// https://pytorch.org/docs/stable/nn.html#padding-layers
//
//     fp::nn::ReflectionPad2d pad({1, 1, 2, 0});   // left, right, top, bottom
//     fp::nn::ConstantPad1d fill(2, 3.5);          // 2 on each side, filled with 3.5
//
// Each is fp::functional::pad with its mode over the last N dimensions of a
// batched or unbatched input: `padding` is one number for every side or 2N
// numbers (left, right, top, bottom, front, back); negative numbers remove
// elements, where PyTorch allows them. Bit-exact with Python; what PyTorch
// refuses throws fp::Error with its message. No parameters or buffers.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "flash_powder/nn/module.h"
#include "flash_powder/nn/options.h"

namespace fp::nn {

/// The mode of a padding layer (its name's first word).
enum class PadMode { Zero, Constant, Reflection, Replication, Circular };

namespace detail {

/// PadNd<N, mode>::forward: the layer `name` applies `padding` with `mode`.
Tensor pad_forward(const std::string& name, TensorView input, std::span<const std::int64_t> padding,
                   PadMode mode, double value);
/// The layer's class name, e.g. "ReflectionPad2d".
std::string pad_layer_name(PadMode mode, std::size_t dims);

/// Every padding layer; use the names below (ZeroPad2d, ...).
template <std::size_t N, PadMode Mode>
class PadNd : public Module {
 public:
  explicit PadNd(ExpandingArray<2 * N> padding) requires(Mode != PadMode::Constant)
      : padding(padding) {}
  PadNd(ExpandingArray<2 * N> padding, double value) requires(Mode == PadMode::Constant)
      : padding(padding), value(value) {}

  Tensor forward(TensorView input) const override {
    return pad_forward(type_name(), input, padding.values(), Mode, value);
  }
  std::string type_name() const override { return pad_layer_name(Mode, N); }

  ExpandingArray<2 * N> padding;
  /// The fill value: ConstantPad's `value`, 0 for ZeroPad, unused by the other modes.
  double value = 0.0;
};

}  // namespace detail

/// https://pytorch.org/docs/stable/generated/torch.nn.ZeroPad1d.html
using ZeroPad1d = detail::PadNd<1, PadMode::Zero>;
/// https://pytorch.org/docs/stable/generated/torch.nn.ZeroPad2d.html
using ZeroPad2d = detail::PadNd<2, PadMode::Zero>;
/// https://pytorch.org/docs/stable/generated/torch.nn.ZeroPad3d.html
using ZeroPad3d = detail::PadNd<3, PadMode::Zero>;

/// `ConstantPad1d(padding, value)`.
/// https://pytorch.org/docs/stable/generated/torch.nn.ConstantPad1d.html
using ConstantPad1d = detail::PadNd<1, PadMode::Constant>;
/// https://pytorch.org/docs/stable/generated/torch.nn.ConstantPad2d.html
using ConstantPad2d = detail::PadNd<2, PadMode::Constant>;
/// https://pytorch.org/docs/stable/generated/torch.nn.ConstantPad3d.html
using ConstantPad3d = detail::PadNd<3, PadMode::Constant>;

/// Each padding less than the size of its dimension (PyTorch's rule).
/// https://pytorch.org/docs/stable/generated/torch.nn.ReflectionPad1d.html
using ReflectionPad1d = detail::PadNd<1, PadMode::Reflection>;
/// https://pytorch.org/docs/stable/generated/torch.nn.ReflectionPad2d.html
using ReflectionPad2d = detail::PadNd<2, PadMode::Reflection>;
/// https://pytorch.org/docs/stable/generated/torch.nn.ReflectionPad3d.html
using ReflectionPad3d = detail::PadNd<3, PadMode::Reflection>;

/// https://pytorch.org/docs/stable/generated/torch.nn.ReplicationPad1d.html
using ReplicationPad1d = detail::PadNd<1, PadMode::Replication>;
/// https://pytorch.org/docs/stable/generated/torch.nn.ReplicationPad2d.html
using ReplicationPad2d = detail::PadNd<2, PadMode::Replication>;
/// https://pytorch.org/docs/stable/generated/torch.nn.ReplicationPad3d.html
using ReplicationPad3d = detail::PadNd<3, PadMode::Replication>;

/// Inputs of N + 1 or N + 2 dimensions only (Python checks this in the layer).
/// https://pytorch.org/docs/stable/generated/torch.nn.CircularPad1d.html
using CircularPad1d = detail::PadNd<1, PadMode::Circular>;
/// https://pytorch.org/docs/stable/generated/torch.nn.CircularPad2d.html
using CircularPad2d = detail::PadNd<2, PadMode::Circular>;
/// https://pytorch.org/docs/stable/generated/torch.nn.CircularPad3d.html
using CircularPad3d = detail::PadNd<3, PadMode::Circular>;

}  // namespace fp::nn
