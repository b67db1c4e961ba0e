// torch.nn's dropout layers: Dropout, Dropout1d, Dropout2d, Dropout3d,
// AlphaDropout and FeatureAlphaDropout. In eval mode, which is what
// flash_powder runs, each passes its input through (a copy of it); each
// throws fp::Error unless 0 <= p <= 1, like Python.
// https://pytorch.org/docs/stable/nn.html#dropout-layers
#pragma once

#include "flash_powder/nn/module.h"

namespace fp::nn {

namespace detail {
/// What the dropout layers share: `p`, checked on construction.
class DropoutBase : public Module {
 public:
  double p;

 protected:
  DropoutBase(double p, const char* layer);
};
}  // namespace detail

/// https://pytorch.org/docs/stable/generated/torch.nn.Dropout.html
class Dropout : public detail::DropoutBase {
 public:
  explicit Dropout(double p = 0.5) : DropoutBase(p, "Dropout") {}
  Tensor forward(TensorView input) const override;
};

/// Takes [N, C, L] or [C, L]; throws fp::Error for other ranks, as Python
/// does in eval mode too. https://pytorch.org/docs/stable/generated/torch.nn.Dropout1d.html
class Dropout1d : public detail::DropoutBase {
 public:
  explicit Dropout1d(double p = 0.5) : DropoutBase(p, "Dropout1d") {}
  Tensor forward(TensorView input) const override;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.Dropout2d.html
class Dropout2d : public detail::DropoutBase {
 public:
  explicit Dropout2d(double p = 0.5) : DropoutBase(p, "Dropout2d") {}
  Tensor forward(TensorView input) const override;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.Dropout3d.html
class Dropout3d : public detail::DropoutBase {
 public:
  explicit Dropout3d(double p = 0.5) : DropoutBase(p, "Dropout3d") {}
  Tensor forward(TensorView input) const override;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.AlphaDropout.html
class AlphaDropout : public detail::DropoutBase {
 public:
  explicit AlphaDropout(double p = 0.5) : DropoutBase(p, "AlphaDropout") {}
  Tensor forward(TensorView input) const override;
};

/// https://pytorch.org/docs/stable/generated/torch.nn.FeatureAlphaDropout.html
class FeatureAlphaDropout : public detail::DropoutBase {
 public:
  explicit FeatureAlphaDropout(double p = 0.5) : DropoutBase(p, "FeatureAlphaDropout") {}
  Tensor forward(TensorView input) const override;
};

}  // namespace fp::nn
