#include "flash_powder/functional/vision.h"

#include <algorithm>
#include <string>
#include <vector>

#include "flash_powder/aten/aten.h"
#include "nn/messages.h"

namespace fp::functional {
namespace {

/// aten::upsample_nearestNd.vec and aten::_upsample_nearest_exactNd.vec.
using NearestOp = Tensor (*)(TensorArg, OptionalIntList, OptionalArrayRef<double>);
/// aten::adaptive_avg_poolNd.
using AreaOp = Tensor (*)(TensorArg, IntList);
/// The interpolating modes' aten::upsample_*.vec and aten::_upsample_*_aa.vec.
using InterpolatingOp = Tensor (*)(TensorArg, OptionalIntList, bool, OptionalArrayRef<double>);

/// What interpolate hands to the ATen op: exactly one of the two is set.
struct Target {
  std::optional<std::vector<std::int64_t>> output_size;
  std::optional<std::vector<double>> scale_factors;
};

[[noreturn]] void fail(const std::string& message) {
  throw Error(ErrorCode::BadArgument, "fp::functional::interpolate: " + message);
}

bool is_interpolating(const std::string& mode) {
  return mode != "nearest" && mode != "area" && mode != "nearest-exact";
}

/// Python's `list(input.shape[2:])` ([] for fewer than 3 dimensions).
std::string spatial_sizes(const TensorView& input) {
  const auto sizes = input.sizes();
  return nn::detail::list_text(sizes.size() > 2 ? sizes.subspan(2) : sizes.subspan(0, 0));
}

std::string python_list(const std::vector<std::int64_t>& values) {
  return nn::detail::list_text(values);
}

std::string python_list(const std::vector<double>& values) {
  return nn::detail::list_text(values);
}

/// Python's processing of `size` and `scale_factor`, in its order and words.
Target resolve_target(const TensorView& input, const InterpolateOptions& options,
                      std::int64_t dims) {
  const bool has_size = options.size.has_value();
  const bool has_scale = options.scale_factor.has_value();
  if (has_size && has_scale) fail("only one of size or scale_factor should be defined");
  if (!has_size && !has_scale) fail("either size or scale_factor should be defined");
  // Python's `[size for _ in range(dim)]`: no values when the input has no spatial dimensions.
  const auto count = static_cast<std::size_t>(std::max<std::int64_t>(dims, 0));
  const auto wrong_count = [dims](std::size_t given) {
    return static_cast<std::int64_t>(given) != dims;
  };
  Target target;
  if (has_size) {
    if (!options.size.is_single() && wrong_count(options.size.values().size())) {
      fail(
          "Input and output must have the same number of spatial dimensions, but got input with "
          "spatial dimensions of " +
          spatial_sizes(input) + " and output size of " + python_list(options.size.values()) +
          ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in "
          "(o1, o2, ...,oK) format.");
    }
    target.output_size = options.size.expand(count);
  } else {
    if (!options.scale_factor.is_single() && wrong_count(options.scale_factor.values().size())) {
      fail(
          "Input and scale_factor must have the same number of spatial dimensions, but got input "
          "with spatial dimensions of " +
          spatial_sizes(input) + " and scale_factor of shape " +
          python_list(options.scale_factor.values()) +
          ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in "
          "(s1, s2, ...,sK) format.");
    }
    target.scale_factors = options.scale_factor.expand(count);
  }
  return target;
}

/// recompute_scale_factor (and area mode): the output size is computed here,
/// as Python does with `int(size * scale)`, and the op derives its scale from it.
void recompute_output_size(const TensorView& input, Target& target) {
  std::vector<std::int64_t> sizes;
  for (std::size_t i = 0; i < target.scale_factors->size(); ++i) {
    const double scaled = static_cast<double>(input.size(static_cast<std::int64_t>(i) + 2)) *
                          (*target.scale_factors)[i];
    sizes.push_back(static_cast<std::int64_t>(scaled));  // int() truncates toward zero
  }
  target.output_size = std::move(sizes);
  target.scale_factors.reset();
}

Tensor resize_nearest(const TensorView& input, const Target& target, const std::string& mode) {
  static constexpr NearestOp nearest[] = {
      &aten::upsample_nearest1d_vec, &aten::upsample_nearest2d_vec, &aten::upsample_nearest3d_vec};
  static constexpr NearestOp exact[] = {&aten::_upsample_nearest_exact1d_vec,
                                        &aten::_upsample_nearest_exact2d_vec,
                                        &aten::_upsample_nearest_exact3d_vec};
  const NearestOp op = (mode == "nearest" ? nearest : exact)[input.dim() - 3];
  return op(input, target.output_size, target.scale_factors);
}

Tensor resize_area(const TensorView& input, const Target& target) {
  static constexpr AreaOp pools[] = {&aten::adaptive_avg_pool1d, &aten::adaptive_avg_pool2d,
                                     &aten::adaptive_avg_pool3d};
  return pools[input.dim() - 3](input, *target.output_size);
}

/// The interpolating modes: the ATen op for `mode` on this input, if any.
InterpolatingOp interpolating_op(const std::string& mode, std::int64_t dim, bool antialias) {
  if (dim == 3 && mode == "linear") return &aten::upsample_linear1d_vec;
  if (dim == 4 && mode == "bilinear") {
    return antialias ? &aten::_upsample_bilinear2d_aa_vec : &aten::upsample_bilinear2d_vec;
  }
  if (dim == 4 && mode == "bicubic") {
    return antialias ? &aten::_upsample_bicubic2d_aa_vec : &aten::upsample_bicubic2d_vec;
  }
  if (dim == 5 && mode == "trilinear") return &aten::upsample_trilinear3d_vec;
  if (dim == 4 && mode == "lanczos") return &aten::_upsample_lanczos2d_aa_vec;
  return nullptr;
}

/// Python's NotImplementedError for a mode that needs another rank.
[[noreturn]] void fail_unsupported(std::int64_t dim, const std::string& mode) {
  static const std::pair<const char*, std::int64_t> needs[] = {
      {"linear", 3}, {"bilinear", 4}, {"trilinear", 5}};
  for (const auto& [name, rank] : needs) {
    if (mode == name && dim >= 3 && dim <= 5 && dim != rank) {
      fail("Got " + std::to_string(dim) + "D input, but " + mode + " mode needs " +
           std::to_string(rank) + "D input");
    }
  }
  fail("Input Error: Only 3D, 4D and 5D input Tensors supported (got " + std::to_string(dim) +
       "D) for the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
       "nearest-exact (got " +
       mode + ")");
}

}  // namespace

Tensor pad(const TensorView& input, IntList pad, const PadOptions& options) {
  return aten::pad(input, pad, options.mode, options.value);
}

Tensor interpolate(const TensorView& input, const InterpolateOptions& options) {
  const std::string& mode = options.mode;
  if (!is_interpolating(mode) && options.align_corners.has_value()) {
    fail(
        "align_corners option can only be set with the interpolating modes: linear | bilinear | "
        "bicubic | trilinear");
  }
  const bool align_corners = options.align_corners.value_or(false);
  // Python's checks, in its order: an input of fewer than 3 dimensions is
  // refused only after its size and scale_factor have been checked.
  Target target = resolve_target(input, options, input.dim() - 2);
  bool recompute = options.recompute_scale_factor.value_or(false);
  if (recompute && options.size.has_value()) {
    fail("recompute_scale_factor is not meaningful with an explicit size.");
  }
  if (mode == "area" && !target.output_size) recompute = true;
  if (recompute) recompute_output_size(input, target);
  const bool antialias_mode = mode == "bilinear" || mode == "bicubic" || mode == "lanczos";
  if (options.antialias && !(antialias_mode && input.dim() == 4)) {
    fail(
        "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
        "4-D tensor as input");
  }
  if (input.dim() < 3 || input.dim() > 5) fail_unsupported(input.dim(), mode);
  if (mode == "nearest" || mode == "nearest-exact") return resize_nearest(input, target, mode);
  if (mode == "area") return resize_area(input, target);
  if (mode == "lanczos") {
    if (align_corners) fail("Lanczos mode does not support align_corners=True");
    if (!options.antialias) fail("Lanczos mode requires antialias=True");
  }
  const InterpolatingOp op = interpolating_op(mode, input.dim(), options.antialias);
  if (op == nullptr) fail_unsupported(input.dim(), mode);
  return op(input, target.output_size, align_corners, target.scale_factors);
}

Tensor upsample(const TensorView& input, const InterpolateOptions& options) {
  InterpolateOptions plain = options;
  plain.recompute_scale_factor.reset();
  plain.antialias = false;
  return interpolate(input, plain);
}

Tensor upsample_nearest(const TensorView& input, const UpsamplingOptions& options) {
  return interpolate(input, {.size = options.size, .scale_factor = options.scale_factor});
}

Tensor upsample_bilinear(const TensorView& input, const UpsamplingOptions& options) {
  return interpolate(input, {.size = options.size,
                             .scale_factor = options.scale_factor,
                             .mode = "bilinear",
                             .align_corners = true});
}

Tensor pixel_shuffle(const TensorView& input, std::int64_t upscale_factor) {
  return aten::pixel_shuffle(input, upscale_factor);
}

Tensor pixel_unshuffle(const TensorView& input, std::int64_t downscale_factor) {
  return aten::pixel_unshuffle(input, downscale_factor);
}

Tensor channel_shuffle(const TensorView& input, std::int64_t groups) {
  return aten::channel_shuffle(input, groups);
}

Tensor native_channel_shuffle(const TensorView& input, std::int64_t groups) {
  return aten::native_channel_shuffle(input, groups);
}

}  // namespace fp::functional
