#include "flash_powder/functional/dropout.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "flash_powder/aten/aten.h"
#include "flash_powder/core/conversion.h"
#include "flash_powder/core/factory.h"
#include "flash_powder/core/operators.h"
#include "nn/messages.h"

// Training with an fp::Generator follows ATen's _dropout_impl
// (aten/src/ATen/native/Dropout.cpp), which the CPU runs for every one of
// these ops: a Bernoulli(1 - p) mask, drawn by libtorch's bernoulli_ kernel
// as `uniform double < 1 - p` per element in memory order, then scaled (and
// for alpha dropout shifted) with Python-number arithmetic.

namespace fp::functional {
namespace {

/// SELU's negative saturation value (ATen's alpha_dropout constant).
constexpr double kAlpha = 1.7580993408473766;

/// What _dropout_impl drops: elements or channels, and how it fills them.
struct Kind {
  const char* name;
  bool feature;
  bool alpha;
};

[[noreturn]] void fail(const Kind& kind, const std::string& message) {
  throw Error(ErrorCode::BadArgument, std::string("fp::functional::") + kind.name + ": " + message);
}

void check_probability(const Kind& kind, double p) {
  if (p < 0.0 || p > 1.0) {
    fail(kind,
         "dropout probability has to be between 0 and 1, but got " + nn::detail::python_float(p));
  }
}

/// libtorch's op for `kind`, drawing from its global generator.
Tensor global_dropout(const TensorView& input, double p, const Kind& kind) {
  if (kind.feature) {
    return kind.alpha ? aten::feature_alpha_dropout(input, p, true)
                      : aten::feature_dropout(input, p, true);
  }
  return kind.alpha ? aten::alpha_dropout(input, p, true) : aten::dropout(input, p, true);
}

/// The 0/1 noise of _dropout_impl in the input's dtype: [N, C, 1, ...]
/// (make_feature_noise, contiguous) for channels, else laid out like
/// `empty_like(input)`. bernoulli_ fills it in memory order, so the uniform
/// samples are drawn flat and viewed with the noise's strides.
Tensor bernoulli_noise(const TensorView& input, double keep, const Kind& kind,
                       Generator& generator) {
  std::vector<std::int64_t> sizes(input.sizes().begin(), input.sizes().end());
  std::vector<std::int64_t> strides;
  if (kind.feature) {
    for (std::size_t d = 2; d < sizes.size(); ++d)
      sizes[d] = 1;
    strides = fp::detail::contiguous_strides(sizes);
  } else {
    const Tensor layout = empty_like(input);
    strides.assign(layout.strides().begin(), layout.strides().end());
  }
  std::int64_t count = 1;
  for (const std::int64_t size : sizes)
    count *= size;
  const Tensor uniform = rand({count}, generator, DType::F64);
  const TensorView in_memory_order = aten::as_strided(uniform, sizes, strides);
  const Tensor kept = in_memory_order.lt(keep);
  return kept.to(TensorOptions(input.dtype(), input.device()));
}

/// _dropout_impl in training with the mask drawn from `generator`.
Tensor seeded_dropout(const TensorView& input, double p, const Kind& kind, Generator& generator) {
  if (p == 0.0 || input.numel() == 0) return input.to_owned();
  if (p == 1.0) return input * zeros({}, TensorOptions(input.dtype(), input.device()));
  if (kind.feature && input.dim() < 2) {
    fail(kind, "Feature dropout requires at least 2 dimensions in the input");
  }
  const Tensor noise = bernoulli_noise(input, 1.0 - p, kind, generator);
  if (!kind.alpha) return input * (noise / (1.0 - p));
  // noise.add(-1).mul_(alpha * a).add_(alpha * a * p), then input * noise.mul_(a) + b.
  const double a = 1.0 / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
  const Tensor b = ((noise + (-1)) * (kAlpha * a)) + (kAlpha * a * p);
  return (input * (noise * a)) + b;
}

/// ATen's dropout ops with the options' mode and generator.
Tensor dropout_op(const TensorView& input, double p, bool training, Generator* generator,
                  const Kind& kind) {
  check_probability(kind, p);
  if (!training) return input.to_owned();
  if (generator == nullptr) return global_dropout(input, p, kind);
  return seeded_dropout(input, p, kind, *generator);
}

/// `op` on input.unsqueeze(0), squeezed back (Python's unbatched dropout1d/3d).
template <class Op>
Tensor unbatched(const TensorView& input, Op&& op) {
  const Tensor batched = op(input.unsqueeze(0));
  return Tensor(batched.squeeze(0));
}

constexpr Kind kDropout{"dropout", false, false};
constexpr Kind kDropout1d{"dropout1d", true, false};
constexpr Kind kDropout2d{"dropout2d", true, false};
constexpr Kind kDropout3d{"dropout3d", true, false};
constexpr Kind kAlphaDropout{"alpha_dropout", false, true};
constexpr Kind kFeatureAlphaDropout{"feature_alpha_dropout", true, true};

}  // namespace

Tensor dropout(const TensorView& input, const DropoutOptions& options) {
  return dropout_op(input, options.p, options.training, options.generator, kDropout);
}

Tensor dropout1d(const TensorView& input, const DropoutOptions& options) {
  check_probability(kDropout1d, options.p);
  const std::int64_t dim = input.dim();
  if (dim != 2 && dim != 3) {
    fail(kDropout1d,
         "dropout1d: Expected 2D or 3D input, but received a " + std::to_string(dim) +
             "D input. Note that dropout1d exists to provide channel-wise dropout on inputs "
             "with 1 spatial dimension, a channel dimension, and an optional batch dimension "
             "(i.e. 2D or 3D inputs).");
  }
  const auto op = [&](const TensorView& batched) {
    return dropout_op(batched, options.p, options.training, options.generator, kDropout1d);
  };
  return dim == 3 ? op(input) : unbatched(input, op);
}

Tensor dropout2d(const TensorView& input, const DropoutOptions& options) {
  return dropout_op(input, options.p, options.training, options.generator, kDropout2d);
}

Tensor dropout3d(const TensorView& input, const DropoutOptions& options) {
  check_probability(kDropout3d, options.p);
  const auto op = [&](const TensorView& batched) {
    return dropout_op(batched, options.p, options.training, options.generator, kDropout3d);
  };
  return input.dim() == 5 ? op(input) : unbatched(input, op);
}

Tensor alpha_dropout(const TensorView& input, const AlphaDropoutOptions& options) {
  return dropout_op(input, options.p, options.training, options.generator, kAlphaDropout);
}

Tensor feature_alpha_dropout(const TensorView& input, const AlphaDropoutOptions& options) {
  return dropout_op(input, options.p, options.training, options.generator, kFeatureAlphaDropout);
}

}  // namespace fp::functional
